import type { CryptoNetwork } from '@pl/contracts';
import type { SyncSchedule } from './status-sync-store';

/** A live crypto payout on the Heleket rail, as its worker and status sync see it. */
export interface HeleketPayout {
  id: string;
  status: string;
  /** What the destination receives the value of, in kopecks (the fee is the platform's: `is_subtract`). */
  amount: number;
  /** The destination snapshot taken when the payout was made. */
  network: CryptoNetwork;
  address: string;
  /** Heleket's payout uuid; null while no answer of Heleket named it (a create unanswered, or links died mid-call). */
  providerPayoutId: string | null;
  /** When it was marked processing, just before its create was sent; null while approved. */
  processingAt: Date | null;
}

/**
 * The Heleket rail's statements (HeleketPayoutRepository). Every claim is one short statement: no transaction is open
 * and no row lock held while Heleket is called.
 */
export interface HeleketPayoutStore {
  /** Up to `limit` approved live crypto payouts, oldest first: those its worker hands to Heleket next. */
  approved(limit: number): Promise<HeleketPayout[]>;
  /** Up to `limit` processing ones due a read, each claimed until one interval from now (FOR UPDATE SKIP LOCKED). */
  claimDue(schedule: SyncSchedule, limit: number): Promise<HeleketPayout[]>;
  /** One payout of the Heleket rail (live, crypto), whatever its status; null for any other. */
  find(id: string): Promise<HeleketPayout | null>;
  /** What Heleket said of it: its uuid and its word; writes nothing when both are as kept. */
  recordAnswer(id: string, providerPayoutId: string, providerStatus: string): Promise<void>;
  /** Heleket answered a read: stamped. */
  read(id: string): Promise<void>;
}
