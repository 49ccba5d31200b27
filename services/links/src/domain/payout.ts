import type { PayoutDestinationSnapshot, PayoutStatus } from '@pl/contracts';
import type { LinkCursor } from './cursor';
import type { OutboxEntry } from './link';
import type { IdempotencyKeyRef, LinkScope, ModeReach, ShopDirectory } from './ports';

/** Where a payout is paid: the sandbox (every test payout), Heleket (crypto address) or the platform's bank (1C file). */
export type PayoutRail = 'sandbox' | 'heleket' | 'bank';

/** A payout as the domain holds it: money in integer kopecks, dates as instants. */
export interface PayoutRecord {
  id: string;
  merchantId: string;
  shopId: number;
  livemode: boolean;
  amount: number;
  fee: number;
  status: PayoutStatus;
  description: string | null;
  destination: PayoutDestinationSnapshot;
  rail: PayoutRail;
  failureReason: string | null;
  createdBy: string | null;
  approvedBy: string | null;
  canceledBy: string | null;
  createdAt: Date;
  createdAtMicros: bigint;
  approvedAt: Date | null;
  processingAt: Date | null;
  paidAt: Date | null;
  failedAt: Date | null;
  canceledAt: Date | null;
  updatedAt: Date;
}

/** The limits of docs/payouts.md, from the links service's configuration (kopecks, hours). */
interface PayoutSettings {
  holdHours: number;
  maxKopecks: number;
  dailyMaxKopecks: number;
  approvalThresholdKopecks: number;
  feeKopecks: number;
}

/** A payout to record, judged in its transaction against the shop's available balance and the account's day. */
export interface NewPayout {
  id: string;
  merchantId: string;
  shopId: number;
  livemode: boolean;
  amount: number;
  fee: number;
  status: 'pending_approval' | 'approved';
  description: string | null;
  destination: PayoutDestinationSnapshot;
  rail: PayoutRail;
  /** The member who asked; null for the shop's schedule. */
  createdBy: string | null;
  key: IdempotencyKeyRef | null;
  /** A scheduled payout's period: its row in `payout_schedule_runs` is written in the payout's transaction. */
  schedule?: SchedulePeriodClaim;
  holdHours: number;
  dailyMaxKopecks: number;
}

/** A shop's schedule of a mode in one period (docs/adr/0046): one payout at most. */
export interface SchedulePeriodClaim {
  interval: 'daily' | 'weekly';
  /** The Moscow date the period starts on (`YYYY-MM-DD`). */
  period: string;
  minimumKopecks: number;
  availableKopecks: number;
}

export type PayoutCreation =
  | { kind: 'created'; payout: PayoutRecord }
  /** Another request holds the key (it committed): answer with its kept payout. */
  | { kind: 'key_taken' }
  | { kind: 'insufficient_available' }
  | { kind: 'daily_limit' }
  /** Another scheduler decided the schedule's period first (a payout or none): nothing written. */
  | { kind: 'period_taken' };

/** A move of a payout's state: `to` from any of `from`, with the columns it stamps, its posting and its event. */
export interface PayoutMove {
  id: string;
  to: PayoutStatus;
  from: readonly PayoutStatus[];
  /** The member who approved, rejected or canceled it. */
  by: string | null;
  failureReason: string | null;
  /** The payout's creator may not make this move (approval): refused as `own_payout`. */
  notByCreator: boolean;
  /** Only a payout of this mode moves (the simulator: test payouts only). */
  livemodeOnly?: boolean;
  /** Only a payout of this merchant moves (a member's decision); null for the rails and the operators. */
  merchantId: string | null;
  eventOf: ((moved: PayoutRecord) => OutboxEntry) | null;
}

export type PayoutMoveResult =
  | { kind: 'moved'; payout: PayoutRecord }
  /** Already in the state asked: nothing written, as a repeat of a rail's callback must be. */
  | { kind: 'unchanged'; payout: PayoutRecord }
  | { kind: 'refused'; payout: PayoutRecord }
  | { kind: 'own_payout'; payout: PayoutRecord }
  | { kind: 'not_found' };

export interface PayoutListQuery {
  scope: LinkScope;
  shopId: number | null;
  status: PayoutStatus | null;
  after: LinkCursor | null;
  limit: number;
}

/**
 * Payouts in the links schema. Each move of money is one transaction: the payout row, its ledger posting
 * (`ledger_post_payout`, whose CHECKs refuse a balance below zero) and its event in the outbox.
 */
export interface PayoutStore {
  create(payout: NewPayout, eventOf: (created: PayoutRecord) => OutboxEntry): Promise<PayoutCreation>;
  move(move: PayoutMove): Promise<PayoutMoveResult>;
  findById(id: string, reach: ModeReach): Promise<PayoutRecord | null>;
  findKept(scope: string, keySha256: string): Promise<{ fingerprint: string; payoutId: string } | null>;
  list(query: PayoutListQuery): Promise<PayoutRecord[]>;
  /** The operators' list: every account's (or one's) newest payouts, both modes. */
  listAll(merchantId: string | null, status: PayoutStatus | null, limit: number): Promise<PayoutRecord[]>;
}

export interface PayoutDeps {
  payouts: PayoutStore;
  shops: ShopDirectory;
  settings: PayoutSettings;
  newId: () => string;
  eventsTopic: string;
}
