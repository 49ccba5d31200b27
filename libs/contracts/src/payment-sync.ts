import { z } from 'zod';
import { uuid } from './fields';

/**
 * The operator's `payment:sync --link ID` (docs/providers.md, "Status sync"): the link's attempts and pending refunds
 * at real providers read now, through links (so a state learned takes its callback's path), and what each read found.
 */
export const paymentSyncCommand = z.strictObject({ link_id: uuid });

const attemptSync = z.strictObject({
  order_id: z.string(),
  provider: z.string(),
  gateway_payment_id: z.string().nullable(),
  provider_status: z.string().nullable(),
  state_before: z.string(),
  state_after: z.string(),
  link_status_before: z.string(),
  link_status_after: z.string(),
  canceled: z.boolean(),
  done: z.boolean(),
  error: z.string().nullable(),
});

const refundSync = z.strictObject({
  id: z.string(),
  provider: z.string(),
  gateway_refund_id: z.string().nullable(),
  provider_status: z.string().nullable(),
  status_before: z.string(),
  status_after: z.string(),
  done: z.boolean(),
  error: z.string().nullable(),
});

export const paymentSyncReport = z.strictObject({
  link_id: z.string(),
  attempts: z.array(attemptSync),
  refunds: z.array(refundSync),
  /** Whether anything read changed an attempt, its link or a refund. */
  changed: z.boolean(),
});
export type PaymentSyncReport = z.infer<typeof paymentSyncReport>;
