import { z } from 'zod';
import {
  createPayoutBody,
  createPayoutDestinationBody,
  emptyBody,
  listPayoutsQuery,
  payout,
  payoutDestination,
  payoutDestinationList,
  payoutPage,
  rejectPayoutBody,
  simulatePayoutBody,
  uuid,
} from '@pl/contracts';
import type { OperationSpec } from './operation-spec';
import * as s from './samples';

/** docs/payouts.md's routes. The tag is spelled out: operations.ts imports this list, so this file may not read its TAGS. */
const TAG = 'Payouts' as OperationSpec['tag'];

const payoutId = z.object({ id: uuid.meta({ description: 'The payout id (UUID).', examples: [s.samplePayout.id] }) });
const destinationId = z.object({
  id: uuid.meta({ description: 'The payout destination id (UUID).', examples: [s.samplePayoutDestination.id] }),
});
const payoutRead = { status: 200, description: 'The payout.', schema: payout, example: s.samplePayout };
const payoutList = { status: 200, description: 'A page of payouts, newest first.', schema: payoutPage, example: s.samplePayoutPage };
const destinationList = {
  status: 200,
  description: "The account's payout destinations of the caller's mode, newest first (masked).",
  schema: payoutDestinationList,
  example: { payout_destinations: [s.samplePayoutDestination] },
};
const RULES =
  "Checked in this order: the body (400; `amount` from 100.00 to PAYOUT_MAX), the account not on hold (422 `payout.err.on_hold`), the destination (404 unknown; 422 `payout.err.destination_not_active` during its cool-down), the shop (404, 403), then under the shop balance's lock: amount plus `PAYOUT_FEE` at most the shop's `available` (422 `payout.err.insufficient_available`), the account's payouts of the last 24 hours (not canceled, rejected or failed) at most PAYOUT_DAILY_MAX (422 `payout.err.daily_limit`). The payout is `pending_approval` from PAYOUT_APPROVAL_THRESHOLD or when the account requires approval of every payout (`require_payout_approval`), else `approved`; its amount and fee leave the balance at once. Sends `payout.created`.";

/** Every payout route: reads on both families, the rest for a dashboard session. */
export const PAYOUT_OPERATIONS: readonly OperationSpec[] = [
  ...(['/merchant/v1', '/api/v1'] as const).flatMap((prefix): OperationSpec[] => {
    const auth = prefix === '/api/v1' ? 'session' : 'apiKey';
    const family = prefix === '/api/v1' ? '' : 'merchant';
    const op = (name: string) => (family ? `${family}${name.charAt(0).toUpperCase()}${name.slice(1)}` : name);
    return [
      {
        method: 'get',
        path: `${prefix}/payout-destinations`,
        operationId: op('listPayoutDestinations'),
        summary: 'List payout destinations',
        tag: TAG,
        auth,
        success: destinationList,
        errors: ['common.err.forbidden'],
      },
      {
        method: 'get',
        path: `${prefix}/payouts`,
        operationId: op('listPayouts'),
        summary: 'List payouts',
        tag: TAG,
        auth,
        query: listPayoutsQuery,
        success: payoutList,
        errors: ['common.err.forbidden', 'common.err.not_found'],
      },
      {
        method: 'get',
        path: `${prefix}/payouts/{id}`,
        operationId: op('getPayout'),
        summary: 'Read a payout',
        description: "Another account's payout is 403; an unknown one, or one of the other mode, 404.",
        tag: TAG,
        auth,
        pathParams: payoutId,
        success: payoutRead,
        errors: ['common.err.forbidden'],
      },
    ];
  }),
  {
    method: 'post',
    path: '/api/v1/payout-destinations',
    operationId: 'createPayoutDestination',
    summary: 'Add a payout destination',
    description:
      "A bank account (`recipient_name`, `inn`, `kpp` with a 10-digit INN, `bik`, `account`) or a crypto address (`network`, `address`, checked as a crypto refund's destination); a wrong one is 400 naming the field (`bank_account.inn`). It is `pending` until PAYOUT_DESTINATION_COOLDOWN_HOURS after it was added (`active_at`), and every member with payout rights (owner, admin, finance) is mailed at once. Shown masked only. Roles: owner, admin, finance.",
    tag: TAG,
    auth: 'session',
    body: {
      schema: createPayoutDestinationBody,
      example: {
        type: 'bank_account',
        bank_account: { recipient_name: 'ООО «Ромашка»', inn: '7707083893', kpp: '773601001', bik: '044525225', account: '40702810238000001234' },
      },
    },
    success: {
      status: 201,
      description: 'The destination, pending its cool-down.',
      schema: payoutDestination,
      example: { ...s.samplePayoutDestination, status: 'pending' },
    },
    errors: ['common.err.forbidden'],
    stepUp: true,
  },
  {
    method: 'get',
    path: '/api/v1/payout-destinations/{id}',
    operationId: 'getPayoutDestination',
    summary: 'Read a payout destination',
    tag: TAG,
    auth: 'session',
    pathParams: destinationId,
    success: { status: 200, description: 'The destination (masked).', schema: payoutDestination, example: s.samplePayoutDestination },
    errors: ['common.err.forbidden'],
  },
  {
    method: 'delete',
    path: '/api/v1/payout-destinations/{id}',
    operationId: 'deletePayoutDestination',
    summary: 'Remove a payout destination',
    description: 'Payouts already made to it keep it. Roles: owner, admin, finance.',
    tag: TAG,
    auth: 'session',
    pathParams: destinationId,
    success: { status: 204, description: 'Removed.' },
    errors: ['common.err.forbidden'],
  },
  {
    method: 'post',
    path: '/api/v1/payouts',
    operationId: 'createPayout',
    summary: "Pay out a shop's balance",
    description: `${RULES} Roles: owner, admin, finance.`,
    tag: TAG,
    auth: 'session',
    body: {
      schema: createPayoutBody,
      example: { shop_id: 42, amount: '50000.00', destination_id: s.samplePayoutDestination.id, description: 'November' },
    },
    idempotency: 'replay',
    success: { status: 201, description: 'The payout, approved or awaiting approval.', schema: payout, example: s.samplePayout },
    errors: [
      'common.err.forbidden',
      'common.err.not_found',
      'payout.err.on_hold',
      'payout.err.destination_not_active',
      'payout.err.insufficient_available',
      'payout.err.daily_limit',
    ],
    stepUp: true,
  },
  {
    method: 'post',
    path: '/api/v1/payouts/{id}/approve',
    operationId: 'approvePayout',
    summary: 'Approve a payout',
    description:
      'By another member than its creator (403 `payout.err.own_payout`); roles owner, admin, finance. A payout not awaiting approval is 409 `payout.err.not_pending_approval`: two approvers at once approve it once.',
    tag: TAG,
    auth: 'session',
    pathParams: payoutId,
    body: { schema: emptyBody, optional: true, example: {} },
    success: { ...payoutRead, description: 'The payout, approved.' },
    errors: ['common.err.forbidden', 'payout.err.own_payout', 'payout.err.not_pending_approval'],
    stepUp: true,
  },
  {
    method: 'post',
    path: '/api/v1/payouts/{id}/reject',
    operationId: 'rejectPayout',
    summary: 'Reject a payout',
    description:
      "A payout awaiting approval ends `rejected` with the reason in `failure_reason`; its money goes back to the shop's balance and `payout.canceled` is sent. Roles: owner, admin, finance.",
    tag: TAG,
    auth: 'session',
    pathParams: payoutId,
    body: { schema: rejectPayoutBody, example: { reason: 'Not agreed with finance' } },
    success: {
      ...payoutRead,
      description: 'The payout, rejected.',
      example: { ...s.samplePayout, status: 'rejected', failure_reason: 'Not agreed with finance' },
    },
    errors: ['common.err.forbidden', 'payout.err.not_pending_approval'],
  },
  {
    method: 'post',
    path: '/api/v1/payouts/{id}/cancel',
    operationId: 'cancelPayout',
    summary: 'Cancel a payout',
    description:
      "While `pending_approval` or `approved` (else 409 `payout.err.not_cancelable`); its money goes back to the shop's balance and `payout.canceled` is sent. Roles: owner, admin, finance.",
    tag: TAG,
    auth: 'session',
    pathParams: payoutId,
    body: { schema: emptyBody, optional: true, example: {} },
    success: { ...payoutRead, description: 'The payout, canceled.', example: { ...s.samplePayout, status: 'canceled' } },
    errors: ['common.err.forbidden', 'payout.err.not_cancelable'],
  },
  {
    method: 'post',
    path: '/api/v1/payouts/{id}/simulate',
    operationId: 'simulatePayout',
    summary: 'Settle a test payout as the sandbox rail would',
    description:
      'Test payouts only (a session sending `Pl-Mode: test`): an approved payout goes to `processing`, then to `paid` or `failed` (the money back to the shop), with its `payout.*` event and ledger postings. A live payout is 404; one not approved or processing is 409 `payout.err.already_final`.',
    tag: TAG,
    auth: 'session',
    pathParams: payoutId,
    body: { schema: simulatePayoutBody, example: { status: 'paid' } },
    success: {
      ...payoutRead,
      description: 'The payout, settled.',
      example: { ...s.samplePayout, status: 'paid', livemode: false, paid_at: '2026-11-30T12:00:00+03:00' },
    },
    errors: ['common.err.forbidden', 'payout.err.already_final'],
  },
];
