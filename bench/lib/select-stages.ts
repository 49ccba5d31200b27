import type { RecordedSpan } from './otlp-sink';
import { summarize } from './stats';

/**
 * The spans of one select's trace: the gateway's HTTP span and its NATS request, the links handler, and the handler's
 * database statements (the pg instrumentation's spans, in start order). The provider's call has no span of its own
 * (undici's fetch is not instrumented): it is the longest gap between two statements of the handler.
 */
interface SelectTrace {
  http?: RecordedSpan;
  request?: RecordedSpan;
  handle?: RecordedSpan;
  statements: RecordedSpan[];
}

interface StageFigures {
  stage: string;
  p50: number;
  p99: number;
}

export interface SelectStages {
  selects: number;
  /** Database statements (BEGIN and COMMIT included) per select: the round trips the handler waits on. */
  statementsPerSelect: { p50: number; max: number };
  stages: StageFigures[];
  /** Each statement's own time (its first 60 characters), p50 / p99, most frequent first. */
  statements: (StageFigures & { count: number })[];
}

const isSelectHttp = (s: RecordedSpan): boolean => s.service === 'gateway' && s.name.startsWith('POST /p/') && s.name.endsWith('/select');

/** Per stage of a select, p50 and p99 over the selects whose every hop was recorded. */
export function selectStages(spans: readonly RecordedSpan[]): SelectStages {
  const traces = new Map<string, SelectTrace>();
  const traceOf = (id: string): SelectTrace => {
    let t = traces.get(id);
    if (!t) traces.set(id, (t = { statements: [] }));
    return t;
  };
  const byName = new Map<string, number[]>();
  for (const s of spans) {
    if (isSelectHttp(s)) traceOf(s.traceId).http = s;
    else if (s.service === 'gateway' && s.name === 'links.select request') traceOf(s.traceId).request = s;
    else if (s.service === 'links' && s.name === 'links.select handle') traceOf(s.traceId).handle = s;
    else if (s.service === 'links' && s.name.startsWith('pg.query')) traceOf(s.traceId).statements.push(s);
  }
  const complete = [...traces.values()].filter(
    (t): t is Required<SelectTrace> => t.http !== undefined && t.request !== undefined && t.handle !== undefined && t.statements.length > 0,
  );
  const rows: Record<string, number[]> = {};
  const add = (stage: string, ms: number): void => {
    (rows[stage] ??= []).push(ms);
  };
  const counts: number[] = [];
  for (const t of complete) {
    const statements = [...t.statements].sort((a, b) => a.startMs - b.startMs);
    counts.push(statements.length);
    for (const s of statements) {
      const name = (s.statement ?? s.name).replace(/\s+/g, ' ').slice(0, 60);
      const list = byName.get(name) ?? [];
      list.push(s.endMs - s.startMs);
      byName.set(name, list);
    }
    // The provider's call: the longest gap between two statements (or the handler's start and its first one).
    let gapAt = 0;
    let gap = statements[0]!.startMs - t.handle.startMs;
    for (let i = 1; i < statements.length; i++) {
      const g = statements[i]!.startMs - statements[i - 1]!.endMs;
      if (g > gap) {
        gap = g;
        gapAt = i;
      }
    }
    const before = statements.slice(0, gapAt);
    const after = statements.slice(gapAt);
    const providerStart = gapAt === 0 ? t.handle.startMs : before[before.length - 1]!.endMs;
    const providerEnd = after[0]!.startMs;
    const inDb = (list: RecordedSpan[]): number => list.reduce((a, s) => a + (s.endMs - s.startMs), 0);
    add('gateway: request received → NATS request sent', t.request.startMs - t.http.startMs);
    add('NATS: request sent → links handler starts', t.handle.startMs - t.request.startMs);
    add('links: before the provider (wall)', providerStart - t.handle.startMs);
    add('links: before the provider (in statements)', inDb(before));
    add("links: the provider's call (gap between statements)", providerEnd - providerStart);
    add('links: after the provider (wall)', t.handle.endMs - providerEnd);
    add('links: after the provider (in statements)', inDb(after));
    add('NATS: handler done → reply at the gateway', t.request.endMs - t.handle.endMs);
    add('gateway: reply → response sent', t.http.endMs - t.request.endMs);
    add('whole: the gateway HTTP span', t.http.endMs - t.http.startMs);
    add("whole: the gateway's span less the provider's call", t.http.endMs - t.http.startMs - (providerEnd - providerStart));
  }
  const figures = (stage: string, values: number[]): StageFigures => {
    const s = summarize(values);
    return { stage, p50: s.p50, p99: s.p99 };
  };
  const c = summarize(counts);
  return {
    selects: complete.length,
    statementsPerSelect: { p50: c.p50, max: c.max },
    stages: Object.entries(rows).map(([stage, values]) => figures(stage, values)),
    statements: [...byName.entries()]
      .sort((a, b) => b[1].length - a[1].length)
      .map(([name, values]) => ({ ...figures(name, values), count: values.length })),
  };
}
