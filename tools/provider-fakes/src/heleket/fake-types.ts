import type { IncomingHttpHeaders } from 'node:http';
import type { HeleketStatus } from './invoices';

/** The fake's own vocabulary, apart from the fake so its control API can name it without importing the fake. */

/** What the fake does to the next requests of one path instead of, or after, answering them. */
export type Fault =
  | { readonly kind: 'status'; readonly status: number; readonly times?: number }
  | { readonly kind: 'hang'; readonly times?: number }
  /** Does what was asked, then answers `status` (or nothing): the caller cannot know it happened. */
  | { readonly kind: 'apply-then-status'; readonly status: number; readonly times?: number }
  | { readonly kind: 'apply-then-hang'; readonly times?: number };

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

export interface Delivery {
  readonly uuid: string;
  readonly status: HeleketStatus;
  readonly body: string;
  /** The receiver's HTTP status, or null when the request failed. */
  readonly answer: number | null;
}
