import { z } from 'zod';
import { moscowDate, paymentSucceededEvent, positiveId } from '@pl/contracts';
import type { ErrorCode } from '@pl/errors';

/**
 * The few wire shapes no contract schema names, because no service parses them: the gateway's error body (its error
 * handler writes it), the provider callback's answer and the webhook bodies as merchants receive them.
 */

/** One problem with one input field: `FieldIssue` of @pl/errors. */
export const fieldIssue = z.object({ field: z.string(), code: z.string(), message: z.string() });

/** `{ error: { code, message, details? } }`, its `code` one of `codes`; `details` only on validation errors. */
export const errorBody = (codes: readonly ErrorCode[]) =>
  z.object({
    error: z.object({
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      details: z.array(fieldIssue).optional(),
    }),
  });

export const callbackReceived = z.object({ received: z.literal(true) });

/** The body of a `payment.succeeded` webhook: the Kafka event's `event` and `data` (notifier). */
export const paymentSucceededWebhook = paymentSucceededEvent.pick({ event: true, data: true });

/** The body of a `webhook.test` webhook (notifier's send-test-webhook). */
export const webhookTestWebhook = z.object({
  event: z.literal('webhook.test'),
  data: z.object({ shop_id: positiveId, sent_at: moscowDate }),
});

/** `Idempotency-Key`: printable ASCII, 1..255 characters (gateway's idempotency middleware). */
export const idempotencyKey = z
  .string()
  .regex(/^[\x20-\x7e]{1,255}$/)
  .meta({
    description:
      'Makes a retry safe: the same key with the same body answers the first result again while the gateway keeps the key (with `Idempotent-Replayed: true`); with another body, 409 `common.err.idempotency_conflict`.',
    examples: ['order-1001-create'],
  });
