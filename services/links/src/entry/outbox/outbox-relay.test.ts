import pino from 'pino';
import type { EventMessage, EventPublisher } from '@pl/bus';
import { TRACEPARENT } from '@pl/telemetry';
import type { OutboxEntry } from '../../domain/link';
import { OutboxRelay } from './outbox-relay';

const TRACE_A = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const TRACE_B = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const entry = (id: string, key: string, traceparent: string | null, json?: string): OutboxEntry => ({
  id,
  topic: 'events',
  key,
  payload: { event_id: id },
  ...(json === undefined ? {} : { json }),
  headers: { 'event-id': id, ...(traceparent ? { [TRACEPARENT]: traceparent } : {}) },
});

/** Hand-overs go out in one publish per topic, whatever their trace contexts: in the order they were handed over. */
describe('the outbox relay publishing hand-overs', () => {
  it('keeps their order across trace contexts and publishes a payload written as JSON text as it is', async () => {
    const published: EventMessage[] = [];
    let publishedAll: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (publishedAll = resolve));
    const publisher: EventPublisher = {
      publish: (_topic, messages) => {
        published.push(...messages);
        if (published.length >= 4) publishedAll();
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    const marked: string[] = [];
    const relay = new OutboxRelay({
      outbox: { publishBatch: () => Promise.resolve(0), markPublished: (ids) => Promise.resolve(void marked.push(...ids)) },
      publisher,
      pollIntervalMs: 600_000,
      batchSize: 100,
      publishTimeoutMs: 5000,
      maxBackoffMs: 1000,
      log: pino({ level: 'silent' }),
    });
    // Two events of link 1 under one trace with link 2's (another trace) between them, then a sweep's own.
    relay.handOver(entry('e1', 'link-1', TRACE_A));
    relay.handOver(entry('e2', 'link-2', TRACE_B));
    relay.handOver(entry('e3', 'link-1', TRACE_A));
    relay.handOver(entry('e4', 'link-3', null, '{"event_id": "e4", "written": "by Postgres"}'));
    relay.start();
    await done;
    await relay.stop();
    expect(published.map((m) => m.key)).toEqual(['link-1', 'link-2', 'link-1', 'link-3']);
    expect(published.map((m) => m.value)).toEqual([
      JSON.stringify({ event_id: 'e1' }),
      JSON.stringify({ event_id: 'e2' }),
      JSON.stringify({ event_id: 'e3' }),
      '{"event_id": "e4", "written": "by Postgres"}',
    ]);
    expect(marked.sort()).toEqual(['e1', 'e2', 'e3', 'e4']);
  });
});
