import { z } from 'zod';
import { moscowDate } from './fields';

/**
 * One select of a link at its provider (docs/providers.md, "Selecting a method: attempts"), as its merchant sees it:
 * which provider, the provider's payment id, the attempt's state and what the provider last said.
 */
export const paymentAttempt = z.object({
  n: z.number().int(),
  /** `<link id>-<n>`: what the provider knows the attempt by. */
  order_id: z.string(),
  provider: z.string(),
  method: z.enum(['sbp', 'crypto']),
  /** The crypto network asked for, null for SBP. */
  network: z.string().nullable(),
  gateway_payment_id: z.string().nullable(),
  state: z.enum(['creating', 'pending', 'unknown', 'refused', 'superseded', 'paid', 'duplicate', 'late', 'failed', 'ended_unpaid']),
  /** The provider's own last word (`confirm_check`, `SUCCESS`, a refusal's message), or null. */
  provider_status: z.string().nullable(),
  created_at: moscowDate,
  /** When the attempt last changed: its provider's latest word, from a callback or a status read. */
  updated_at: moscowDate,
});
export type PaymentAttempt = z.infer<typeof paymentAttempt>;

/** A link's attempts, oldest first (a link has a handful). */
export const paymentAttemptList = z.object({ attempts: z.array(paymentAttempt) });
export type PaymentAttemptList = z.infer<typeof paymentAttemptList>;
