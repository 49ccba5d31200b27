import type { LatencySummary } from './stats';

/** One request shape; `paths` / `bodies` vary it per request (random pick, or each used once in order). */
export interface RequestTemplate {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** When set, each request takes one of these paths instead of `path`. */
  paths?: string[];
  /** `random`: any path each time; `once`: each path in order, once (a cancel pool), wrapping when used up. */
  pick?: 'random' | 'once';
  /** With `once`: where in `paths` to begin (a later slice of the same pool goes on where the last one stopped). */
  offset?: number;
}

/** Closed loop: `connections` keep one request each in flight for a fixed time (autocannon). */
export interface ClosedLoopSpec {
  mode: 'closed';
  url: string;
  connections: number;
  warmupSeconds: number;
  /** Measured time; with `stoppable`, the longest it may run before the bench says stop. */
  seconds: number;
  stoppable?: boolean;
  /** Record (finish time, latency) of every 2xx, so windows of the run can be cut out afterwards. */
  timeline?: boolean;
  /** Return every 2xx latency, so slices of one scenario can be merged. */
  raw?: boolean;
  /** Return every 2xx latency with the path it answered (to pair a request with what it met downstream). */
  keyed?: boolean;
  request: RequestTemplate;
}

/** Open loop at a fixed rate: each item is sent once, at start + i / rate, whatever came back before. */
export interface PacedSpec {
  mode: 'paced';
  url: string;
  rate: number;
  maxSockets: number;
  items: { key: string; method: 'POST'; path: string; headers: Record<string, string>; body: string }[];
}

export type LoadSpec = ClosedLoopSpec | PacedSpec;

export interface ClosedLoopResult {
  mode: 'closed';
  seconds: number;
  /** Every response, whatever its status. */
  responses: number;
  ok: number;
  non2xx: number;
  /** Socket errors and time-outs. */
  errors: number;
  statusCodes: Record<string, number>;
  /** 2xx responses per second. */
  rps: number;
  /** Of 2xx responses, in ms. */
  latency: LatencySummary;
  /** [wall ms when the response finished, latency ms] of each 2xx, when asked for. */
  timeline?: [number, number][];
  /** A `once` pool that ran dry and wrapped around (its later requests were repeats). */
  wrapped?: boolean;
  /** Paths taken from the pool, warm-up included. */
  picked: number;
  /** Every 2xx latency in ms, when asked for. */
  latencies?: number[];
  /** [path, latency ms] of every 2xx, when asked for (`keyed`). */
  keyed?: [string, number][];
}

export interface PacedResult {
  mode: 'paced';
  seconds: number;
  /** Per item, in the order sent: key, status (0 = socket error), wall ms when it was sent and when its answer arrived. */
  items: { key: string; status: number; sentAt: number; answeredAt: number }[];
  /** Largest lag of a send behind its schedule, ms: above a few ms the sender itself could not keep the rate. */
  maxSendLagMs: number;
}

export type LoadResult = ClosedLoopResult | PacedResult;
