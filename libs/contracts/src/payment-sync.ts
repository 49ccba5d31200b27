import { z } from 'zod';
import { uuid } from './fields';

/**
 * The operator's `payment:sync --link ID` (docs/providers.md, "Status sync"): the link's attempts and pending refunds
 * at real providers read now, through links (so a state learned takes its callback's path), and what each read found.
 */
/** Reads a report lists at most, of attempts and of refunds each (the newest; the counts say how many were read). */
export const PAYMENT_SYNC_REPORT_MAX = 20;
/** A provider's status word and a read's error, as the report carries them at most. */
export const PAYMENT_SYNC_TEXT_MAX = 500;

const text = z.string().max(PAYMENT_SYNC_TEXT_MAX);
/** Order ids are `<link id>-<n>`; payment and refund ids are the provider's, bounded as the settle commands bound them. */
const orderId = z.string().max(64);
const providerId = z.string().max(200);

export const paymentSyncCommand = z.strictObject({ link_id: uuid });

const word = z.string().max(64);

const attemptSync = z.strictObject({
  order_id: orderId,
  provider: word,
  gateway_payment_id: providerId.nullable(),
  provider_status: text.nullable(),
  state_before: word,
  state_after: word,
  link_status_before: word,
  link_status_after: word,
  canceled: z.boolean(),
  done: z.boolean(),
  error: text.nullable(),
});

const refundSync = z.strictObject({
  id: uuid,
  provider: word,
  gateway_refund_id: providerId.nullable(),
  provider_status: text.nullable(),
  status_before: word,
  status_after: word,
  done: z.boolean(),
  error: text.nullable(),
});

export const paymentSyncReport = z.strictObject({
  link_id: uuid,
  /** How many attempts and refunds were read; the lists hold the newest {@link PAYMENT_SYNC_REPORT_MAX} of each. */
  attempts_read: z.number().int().min(0),
  refunds_read: z.number().int().min(0),
  attempts: z.array(attemptSync).max(PAYMENT_SYNC_REPORT_MAX),
  refunds: z.array(refundSync).max(PAYMENT_SYNC_REPORT_MAX),
  /** Whether anything read changed an attempt, its link or a refund. */
  changed: z.boolean(),
});
export type PaymentSyncReport = z.infer<typeof paymentSyncReport>;
