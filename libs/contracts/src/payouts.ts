import { z } from 'zod';
import { amountInput, CURSOR_MAX_LENGTH, moneyText, moscowDate, PAGE_LIMIT_MAX, pageQueryFields, positiveId, uuid } from './fields';
import { freeText, identifierText, text } from './text';
import { idempotencyClaim } from './idempotency';
import { cryptoNetwork } from './checkout';

/** docs/payouts.md: where a payout goes, owned by the account (the gateway keeps them beside accounts). */
export const payoutDestinationType = z.enum(['bank_account', 'crypto_address']);
export type PayoutDestinationType = z.infer<typeof payoutDestinationType>;
export const payoutDestinationStatus = z.enum(['pending', 'active']);

export const RECIPIENT_NAME_MAX_LENGTH = 160;
export const CRYPTO_ADDRESS_MAX_LENGTH = 128;

/**
 * A Russian bank account as the 1C exchange file needs it. Its shape (digits, lengths) and check digits are judged by
 * the gateway's `bankAccountProblems`, which names each offending field; here only the text rule and a length bound.
 */
export const bankAccountDetails = z.strictObject({
  recipient_name: text({ max: RECIPIENT_NAME_MAX_LENGTH }),
  inn: identifierText(12),
  kpp: identifierText(9).nullable().optional(),
  bik: identifierText(9),
  account: identifierText(20),
});
export type BankAccountDetails = z.infer<typeof bankAccountDetails>;

export const cryptoAddressDetails = z.strictObject({ network: cryptoNetwork, address: identifierText(CRYPTO_ADDRESS_MAX_LENGTH) });
export type CryptoAddressDetails = z.infer<typeof cryptoAddressDetails>;

/** `POST /api/v1/payout-destinations`: the type, and the details under the type's own key. */
export const createPayoutDestinationBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bank_account'), bank_account: bankAccountDetails }),
  z.strictObject({ type: z.literal('crypto_address'), crypto_address: cryptoAddressDetails }),
]);
export type CreatePayoutDestinationBody = z.infer<typeof createPayoutDestinationBody>;

/**
 * A payout destination as both route families show it: never the full details, only `masked` (an account's last four
 * digits, an address's first six and last four characters). `status` is `pending` until `active_at` (the cool-down).
 */
export const payoutDestination = z.object({
  id: uuid,
  type: payoutDestinationType,
  status: payoutDestinationStatus,
  masked: z.string(),
  /** The crypto network (crypto_address) or the bank's BIK (bank_account): what the masked form does not say. */
  network: cryptoNetwork.nullable(),
  livemode: z.boolean(),
  created_by: uuid.nullable(),
  created_at: moscowDate,
  active_at: moscowDate,
});
export type PayoutDestination = z.infer<typeof payoutDestination>;
export const payoutDestinationList = z.object({ payout_destinations: z.array(payoutDestination) });
export type PayoutDestinationList = z.infer<typeof payoutDestinationList>;

/** docs/payouts.md, "States". */
export const payoutStatus = z.enum(['pending_approval', 'approved', 'processing', 'paid', 'failed', 'canceled', 'rejected']);
export type PayoutStatus = z.infer<typeof payoutStatus>;

export const PAYOUT_DESCRIPTION_MAX_LENGTH = 500;
export const PAYOUT_REASON_MAX_LENGTH = 500;

/**
 * What links keeps of the destination with the payout, as the gateway resolved it when the payout was made: the rails
 * pay to these details even if the destination is deleted afterwards. `details` are the destination's own fields.
 */
export const payoutDestinationSnapshot = z.strictObject({
  id: uuid,
  type: payoutDestinationType,
  masked: z.string().max(200),
  details: z.union([bankAccountDetails, cryptoAddressDetails]),
});
export type PayoutDestinationSnapshot = z.infer<typeof payoutDestinationSnapshot>;

/** The payout object of both route families and of the payout events. */
export const payout = z.object({
  id: uuid,
  shop_id: positiveId,
  amount: moneyText,
  fee: moneyText,
  currency: z.literal('RUB'),
  destination: z.object({ id: uuid, type: payoutDestinationType, masked: z.string() }),
  status: payoutStatus,
  description: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_by: uuid.nullable(),
  approved_by: uuid.nullable(),
  created_at: moscowDate,
  approved_at: moscowDate.nullable(),
  paid_at: moscowDate.nullable(),
  livemode: z.boolean(),
});
export type Payout = z.infer<typeof payout>;

export const payoutPage = z.object({ payouts: z.array(payout), has_more: z.boolean(), next_cursor: z.string().nullable() });
export type PayoutPage = z.infer<typeof payoutPage>;

/** `POST /api/v1/payouts`. */
export const createPayoutBody = z.strictObject({
  shop_id: positiveId,
  amount: amountInput,
  destination_id: uuid,
  description: freeText(PAYOUT_DESCRIPTION_MAX_LENGTH).nullable().optional(),
});

export const rejectPayoutBody = z.strictObject({ reason: text({ max: PAYOUT_REASON_MAX_LENGTH, min: 1, lineBreaks: true }) });
/** `POST /api/v1/payouts/{id}/simulate` (test payouts only). */
export const simulatePayoutBody = z.strictObject({ status: z.enum(['paid', 'failed']) });

export const listPayoutsQuery = z.strictObject({
  shop_id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(positiveId)
    .optional(),
  status: payoutStatus.optional(),
  ...pageQueryFields,
});

// NATS commands of the links service (merchant and mode from the identity token; the user from the gateway's session).
export const createPayoutCommand = z.strictObject({
  shop_id: positiveId,
  amount_kopecks: z.number().int().min(1),
  description: z
    .string()
    .max(4 * PAYOUT_DESCRIPTION_MAX_LENGTH)
    .nullable(),
  destination: payoutDestinationSnapshot,
  /** The member who asks (the session's user). */
  created_by: uuid,
  /** The account requires approval of every payout (its `require_payout_approval`). */
  requires_approval: z.boolean(),
  idempotency: idempotencyClaim.optional(),
});
export type CreatePayoutCommand = z.infer<typeof createPayoutCommand>;

export const idempotentPayoutReply = z.strictObject({ payout, replayed: z.boolean() });
export type IdempotentPayoutReply = z.infer<typeof idempotentPayoutReply>;

export const payoutIdCommand = z.strictObject({ id: uuid });
/** Approve, reject or cancel, by a member (`user_id`); reject carries its reason. */
export const payoutDecisionCommand = z.strictObject({
  id: uuid,
  decision: z.enum(['approve', 'reject', 'cancel']),
  user_id: uuid,
  reason: z
    .string()
    .max(4 * PAYOUT_REASON_MAX_LENGTH)
    .nullable(),
});
export type PayoutDecisionCommand = z.infer<typeof payoutDecisionCommand>;

export const listPayoutsCommand = z.strictObject({
  shop_id: positiveId.nullable(),
  status: payoutStatus.nullable(),
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type ListPayoutsCommand = z.infer<typeof listPayoutsCommand>;

export const simulatePayoutCommand = z.strictObject({ id: uuid, status: z.enum(['paid', 'failed']) });
