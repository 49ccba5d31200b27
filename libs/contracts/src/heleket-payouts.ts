import { z } from 'zod';
import { uuid } from './fields';

/**
 * Crypto payouts at Heleket (docs/payouts.md, "How a payout is paid"): what the gateway forwards to links from a
 * verified payout webhook, and what the operator's `payment:sync --payout ID` reports.
 */

/** A payout's state at Heleket in the platform's words (`PayoutStatus` of @pl/providers). */
export const heleketPayoutStatus = z.enum(['processing', 'paid', 'failed']);

/** A verified payout webhook (service identity): our payout id read back from its `order_id`. */
export const settleHeleketPayoutCommand = z.strictObject({
  payout_id: uuid,
  /** Heleket's payout uuid. */
  provider_payout_id: z.string().min(1).max(200),
  status: heleketPayoutStatus,
  /** Heleket's own word (`process`, `paid`, `system_fail`, ...). */
  provider_status: z.string().min(1).max(64),
  /** Why a failed payout failed (Heleket's `fail_reason`, else its word); null otherwise. */
  failure_reason: z.string().max(500).nullable(),
});
export type SettleHeleketPayoutCommand = z.infer<typeof settleHeleketPayoutCommand>;

export const payoutSyncCommand = z.strictObject({ id: uuid });

/** What one read of a processing Heleket payout found and did. */
export const payoutSyncReport = z.strictObject({
  id: uuid,
  provider_payout_id: z.string().max(200).nullable(),
  /** Heleket's word, or null when it shows no payout of this order id (or was not read). */
  provider_status: z.string().max(64).nullable(),
  status_before: z.string().max(64),
  status_after: z.string().max(64),
  /** Heleket showed none, so the create was sent (again) under the same order id. */
  created: z.boolean(),
  /** Why the read did not complete (Heleket unavailable, ...); null when it did. */
  error: z.string().max(500).nullable(),
});
export type PayoutSyncReport = z.infer<typeof payoutSyncReport>;
