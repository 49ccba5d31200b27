import type { IncomingHttpHeaders } from 'node:http';
import type { HeleketStatus } from './invoices';

/** The fake's own vocabulary, apart from the fake so its control API can name it without importing the fake. */

/** What the fake does to the next requests of one path instead of, or after, answering them. */
export type Fault =
  | { readonly kind: 'status'; readonly status: number; readonly times?: number }
  | { readonly kind: 'hang'; readonly times?: number }
  /** Does what was asked, then answers `status` (or nothing): the caller cannot know it happened. */
  | { readonly kind: 'apply-then-status'; readonly status: number; readonly times?: number }
  | { readonly kind: 'apply-then-hang'; readonly times?: number }
  /** Does what was asked, then drops the connection without an answer (a reset after the provider recorded it). */
  | { readonly kind: 'apply-then-drop'; readonly times?: number }
  /** Answers as usual, `ms` late (a slow provider; past the caller's deadline, an unknown outcome). */
  | { readonly kind: 'delay'; readonly ms: number; readonly times?: number };

export interface CallbackPolicy {
  /** `send` at once, `drop` (never sent), or `hold` until releaseCallbacks(). */
  mode: 'send' | 'drop' | 'hold';
  delayMs: number;
  /** Each callback sent this many times. */
  repeat: number;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One webhook sent: an invoice's (`deliveries`) or a payout's (`payoutDeliveries`; payout statuses are invoice words too). */
export interface Delivery {
  readonly uuid: string;
  readonly status: HeleketStatus;
  readonly body: string;
  /** The receiver's HTTP status, or null when the request failed. */
  readonly answer: number | null;
}
