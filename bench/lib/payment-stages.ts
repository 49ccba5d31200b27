import type { RecordedSpan } from './otlp-sink';
import { summarize } from './stats';

/** The spans of one payment's trace that mark its hops (names as the services make them). */
interface Hops {
  callback?: RecordedSpan;
  natsRequest?: RecordedSpan;
  settle?: RecordedSpan;
  publish?: RecordedSpan;
  consume?: RecordedSpan;
  send?: RecordedSpan;
}

const hopOf = (s: RecordedSpan): keyof Hops | null => {
  if (s.service === 'gateway' && s.name.startsWith('POST /callbacks/')) return 'callback';
  if (s.service === 'gateway' && s.name === 'links.settle request') return 'natsRequest';
  if (s.service === 'links' && s.name === 'links.settle handle') return 'settle';
  if (s.service === 'links' && s.name.endsWith(' publish')) return 'publish';
  if (s.service === 'notifier' && s.name.endsWith(' process')) return 'consume';
  if (s.service === 'notifier' && s.name === 'webhook send') return 'send';
  return null;
};

type Complete = Required<Hops>;

/** Each stage of the payment path, start to end, as the spans of every hop time it. */
const STAGES: [string, (h: Complete) => number][] = [
  ['gateway: callback received → NATS request sent', (h) => h.natsRequest.startMs - h.callback.startMs],
  ['NATS: request sent → links handler starts', (h) => h.settle.startMs - h.natsRequest.startMs],
  ['links: look-up and settle statement', (h) => h.settle.endMs - h.settle.startMs],
  ['NATS: handler done → reply received by the gateway', (h) => h.natsRequest.endMs - h.settle.endMs],
  ['gateway: reply → callback answered', (h) => h.callback.endMs - h.natsRequest.endMs],
  ['links: settle done → publish to Kafka starts', (h) => h.publish.startMs - h.settle.endMs],
  ['links: publish to Kafka (until acknowledged)', (h) => h.publish.endMs - h.publish.startMs],
  ['Kafka: acknowledged → notifier takes the event in', (h) => h.consume.startMs - h.publish.endMs],
  ['notifier: store (claimed)', (h) => h.consume.endMs - h.consume.startMs],
  ['notifier: stored → webhook request sent', (h) => h.send.startMs - h.consume.endMs],
  ["webhook request → the receiver's answer", (h) => h.send.endMs - h.send.startMs],
];

export interface StageFigures {
  stage: string;
  p50: number;
  p99: number;
}

/** Per stage, p50 and p99 over the payments whose every hop was recorded; and how many those were. */
export function paymentStages(spans: readonly RecordedSpan[]): { payments: number; stages: StageFigures[] } {
  const traces = new Map<string, Hops>();
  for (const s of spans) {
    const hop = hopOf(s);
    if (!hop) continue;
    const hops = traces.get(s.traceId) ?? {};
    hops[hop] = s;
    traces.set(s.traceId, hops);
  }
  const complete = [...traces.values()].filter((h): h is Complete => Object.keys(h).length === 6);
  return {
    payments: complete.length,
    stages: STAGES.map(([stage, of]) => {
      const s = summarize(complete.map(of));
      return { stage, p50: s.p50, p99: s.p99 };
    }),
  };
}
