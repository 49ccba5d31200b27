import { loadavg } from 'node:os';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import type { Clock } from './clock';

/** Each HTTP request the generator makes, by what it is for (a `pay` makes a `select` every other time, then a `callback`). */
export const REQUEST_KINDS = ['create', 'get', 'list', 'list (session)', 'cancel', 'select', 'callback'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export const EXPECTED_STATUS: Record<RequestKind, number> = {
  create: 201,
  get: 200,
  list: 200,
  'list (session)': 200,
  cancel: 200,
  select: 200,
  callback: 200,
};

export interface Sample {
  kind: RequestKind;
  /** When it was due (clock ms): latency counts from then, so a stalled generator cannot hide a slow system. */
  at: number;
  ms: number;
  status?: number;
  error?: string;
  gateway: number;
}

/** What the machine itself was doing in a window: the generator's own event-loop delay and the load average. */
export interface WindowProbe {
  end: number;
  loopDelayP99Ms: number;
  loadavg1: number;
}

export interface TimelineEvent {
  at: number;
  text: string;
}

/** Everything measured during the run, in memory (a few tens of thousands of samples at most). */
export class Recorder {
  readonly samples: Sample[] = [];
  readonly events: TimelineEvent[] = [];
  readonly probes: WindowProbe[] = [];
  /** Operations not started because too many were still in flight (the system had stalled). */
  shed = 0;
  /** The first few answers of each unexpected kind (`create 503`), to read in the report. */
  readonly examples = new Map<string, string[]>();
  private readonly loop: ELDHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly clock: Clock) {
    this.loop.enable();
  }

  record(sample: Sample, body?: string): void {
    this.samples.push(sample);
    if (isExpected(sample)) return;
    const key = `${sample.kind} ${sample.status ?? sample.error}`;
    const list = this.examples.get(key) ?? [];
    if (list.length < 3) list.push(`t=${(sample.at / 1000).toFixed(1)}s gateway#${sample.gateway + 1}: ${(body ?? '').slice(0, 300)}`);
    this.examples.set(key, list);
  }

  event(text: string): void {
    this.events.push({ at: this.clock.now(), text });
  }

  /** Closes a window: the generator's event-loop delay since the last probe, and the 1-minute load average. */
  probe(): WindowProbe {
    const p: WindowProbe = { end: this.clock.now(), loopDelayP99Ms: this.loop.percentile(99) / 1e6, loadavg1: loadavg()[0] ?? NaN };
    this.loop.reset();
    this.probes.push(p);
    return p;
  }

  close(): void {
    this.loop.disable();
  }
}

export const isExpected = (s: Sample): boolean => s.status === EXPECTED_STATUS[s.kind];
