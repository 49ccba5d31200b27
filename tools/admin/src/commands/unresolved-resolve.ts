import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { PAYMENT_EVENTS_TOPIC } from '@pl/contracts';
import { resolveUnresolvedPayment, type UnresolvedResolveCommand } from '@pl/links';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';
import { providers } from './payment-late-resolve';
import { unresolvedOutput } from './unresolved-list';

const flags = z
  .strictObject({
    id: uuidFlag('an unresolved payment'),
    action: z.enum(['settle', 'refund']),
    destination: z.string().min(1).max(200).optional(),
  })
  .refine((f) => f.destination === undefined || f.action === 'refund', { message: 'is only taken with --action refund', path: ['destination'] });

/**
 * `unresolved:resolve --id ID --action settle|refund [--destination A]` -> the record resolved, with the ledger
 * transaction (settle) or the refund (refund) it made. Any reason, an AML hold included (merchants cannot resolve one).
 */
export const unresolvedResolve: Command = {
  summary: 'resolve an unresolved payment once (any reason, aml_hold included): settle it to the shop, or refund it',
  help: `Usage: unresolved:resolve --id ID --action settle|refund [--destination A]

Resolves an unresolved payment (see unresolved:list) once:

  --action settle   credits the shop what arrived less the fee at the payment's method rate (ledger type
                    unresolved_payment; late_payment and payment.late_settled for a late one) and sends
                    unresolved_payment.settled
  --action refund   records a refund of what arrived to the payer, then hands it to the provider that took
                    the payment (naming the paying attempt); the shop's balance is untouched. A refund the
                    provider fails returns the payment to unresolved. Sends unresolved_payment.refunded
  --destination A   the buyer's address, for the refund of a crypto payment (required there, refused
                    otherwise)

A second resolve fails with 409 unresolved_payment.err.already_resolved.
Prints {"unresolved_payment": {...}, "ledger_transaction_id", "refund_id"}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { id: { type: 'string' }, action: { type: 'string' }, destination: { type: 'string' } }, flags);
    const command: UnresolvedResolveCommand =
      f.action === 'settle'
        ? { id: f.id.toLowerCase(), action: 'settle', destination: null }
        : { id: f.id.toLowerCase(), action: 'refund', destination: f.destination ?? null };
    const { registry, timeoutMs } = providers(ctx.env);
    const resolved = await resolveUnresolvedPayment(
      {
        unresolvedPayments: ctx.latePayments(),
        refunds: ctx.refunds(),
        providers: registry,
        providerTimeoutMs: timeoutMs,
        newId: randomUUID,
        eventsTopic: ctx.env.PAYMENT_EVENTS_TOPIC ?? PAYMENT_EVENTS_TOPIC,
        warn: () => undefined,
      },
      { kind: 'operator' },
      command,
    );
    const after = (await ctx.latePayments().findById(resolved.late.id)) ?? resolved.late;
    return { unresolved_payment: unresolvedOutput(after), ledger_transaction_id: resolved.ledgerTransactionId, refund_id: resolved.refundId };
  },
};
