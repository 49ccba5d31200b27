import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { formatMoscow, PAYMENT_EVENTS_TOPIC } from '@pl/contracts';
import { parseConfig } from '@pl/config';
import { resolveLatePayment, type LateResolveCommand } from '@pl/links';
import { providerEnv, providersFrom } from '@pl/providers';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';
import { latePaymentOutput } from './payment-late';

const flags = z
  .strictObject({
    id: uuidFlag('a late payment'),
    action: z.enum(['settle', 'refund']),
    destination: z.string().min(1).max(200).optional(),
  })
  .refine((f) => f.destination === undefined || f.action === 'refund', { message: 'is only taken with --action refund', path: ['destination'] });

/**
 * The providers of the deployment, from the same settings the services read (a late payment's refund goes to the
 * provider that took it). The sandbox accepts a refund at once as `sbr_<refund id>`.
 */
export const providers = (env: NodeJS.ProcessEnv) => {
  const config = parseConfig(providerEnv, env);
  return { registry: providersFrom(config, { publicBaseUrl: env.PUBLIC_BASE_URL }), timeoutMs: config.PROVIDER_REQUEST_TIMEOUT_MS };
};

/**
 * `payment:late:resolve --id ID --action settle|refund [--destination A]` -> the late payment resolved, with the
 * ledger transaction (settle) or the refund (refund) it made. Each late payment is resolved once (409 after).
 */
export const paymentLateResolve: Command = {
  summary: 'resolve a late payment once: credit it to the shop, or refund it to the buyer',
  help: `Usage: payment:late:resolve --id ID --action settle|refund [--destination A]

Resolves a payment that arrived after its link was closed (see payment:late), once:

  --action settle   credits the shop as a paid link would have (ledger type late_payment, the amounts the
                    link held when the payment arrived) and sends payment.late_settled (to a shop that
                    subscribed to it); no payment.succeeded is sent for the closed link
  --action refund   refunds the whole payment to the buyer through its provider, without touching the
                    shop's balance; settle the refund with refund:settle as any other
  --destination A   the buyer's address, for the refund of a crypto payment (required there, refused
                    otherwise)

A test late payment resolves the same way, in the test accounts. A second resolve fails with 409
late_payment.err.already_resolved. Prints {"late_payment": {...}, "ledger_transaction_id", "refund_id"}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { id: { type: 'string' }, action: { type: 'string' }, destination: { type: 'string' } }, flags);
    const command: LateResolveCommand =
      f.action === 'settle'
        ? { id: f.id.toLowerCase(), action: 'settle', destination: null }
        : { id: f.id.toLowerCase(), action: 'refund', destination: f.destination ?? null };
    const { registry, timeoutMs } = providers(ctx.env);
    const resolved = await resolveLatePayment(
      {
        unresolvedPayments: ctx.latePayments(),
        refunds: ctx.refunds(),
        providers: registry,
        providerTimeoutMs: timeoutMs,
        newId: randomUUID,
        // The relay of the links service publishes it from the outbox, to the topic its own config names.
        eventsTopic: ctx.env.PAYMENT_EVENTS_TOPIC ?? PAYMENT_EVENTS_TOPIC,
        warn: () => undefined,
      },
      command,
    );
    const { late } = resolved;
    return {
      late_payment: {
        ...latePaymentOutput(late),
        livemode: late.livemode,
        resolution: late.resolution,
        resolved_at: late.resolvedAt === null ? null : formatMoscow(late.resolvedAt),
      },
      ledger_transaction_id: resolved.ledgerTransactionId,
      refund_id: resolved.refundId,
    };
  },
};
