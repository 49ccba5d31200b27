import { z } from 'zod';
import { mode, moscowDate, positiveId, PUBLIC_EVENT_ID } from '@pl/contracts';
import type { ErrorCode } from '@pl/errors';

/**
 * The few wire shapes no contract schema names, because no service parses them: the gateway's error body (its error
 * handler writes it), the provider callback's answer and the `webhook.test` body.
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

/** GET /openapi.json: an OpenAPI 3.1 document (this one); its members beyond these are the specification's. */
export const openApiDocumentShape = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
});

export const callbackReceived = z.object({ received: z.literal(true) });

/**
 * The body of a `webhook.test` webhook (notifier's send-test-webhook): shaped like an event's body, in the mode of
 * whoever asked for it. The events of every other type are contracts' `webhookEvent`.
 */
export const webhookTestWebhook = z.object({
  event: z.literal('webhook.test'),
  event_id: z
    .string()
    .regex(PUBLIC_EVENT_ID)
    .meta({ description: 'The same as the webhook-id header: an id of its own (no event is recorded for a test).' }),
  created_at: moscowDate,
  livemode: z.boolean().meta({ description: '`false` when sent in test mode.' }),
  data: z.object({ shop_id: positiveId, sent_at: moscowDate }),
});

/**
 * `Pl-Mode` as a session route reads it: the mode the dashboard acts in (its live / test switch). Exactly `live` or
 * `test`; anything else is 400, never silently live.
 */
export const sessionModeHeader = mode.default('live').meta({
  description:
    "The mode to act in: with `test`, links, webhook deliveries and test webhooks are the test mode's only (API keys and cashier keys name their mode in the body instead). Absent: `live`. Any other value is 400 `common.err.validation_failed`.",
});

/**
 * `Pl-Mode` on a route whose credential carries its mode (API key pair, cashier key): a check, not a choice. A caller
 * that believes it is testing must never create a live link.
 */
export const credentialModeHeader = mode.optional().meta({
  description:
    "Optional. The credential decides the mode (`pk_test_` / `sk_test_` / `svc_test_` act in test mode); a value naming another mode than the credential's is 400 `common.err.validation_failed`.",
});

/** `Pl-Mode` where either a cashier key or a session may call. */
export const eitherModeHeader = mode.optional().meta({
  description:
    "With a session: the mode to act in (absent: `live`). With a cashier key: optional, and it must name the key's own mode. Either way, a value other than `live` or `test`, or a mode the cashier key does not have, is 400 `common.err.validation_failed`.",
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

/** `X-Request-Id` as a caller may send it: 1..128 of `[A-Za-z0-9._:-]` (gateway's request-id middleware), else replaced. */
export const requestIdHeader = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/)
  .meta({
    description: 'Your id for this request, echoed in the answer and the logs; another shape is replaced by a fresh UUID.',
    examples: ['4f1c2b7e-8a9d-4e3f-b2c1-0d9e8f7a6b5c'],
  });
