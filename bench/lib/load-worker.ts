/**
 * The load generator, run as its own process (`node --import tsx bench/lib/load-worker.ts spec.json`) so
 * its CPU is apart from the system's and the bench's. Speaks JSON lines on stdout: `{"event":"measure"}`
 * when the measured part starts (after the warm-up), then `{"event":"result", ...}`. A `stop` line on stdin
 * ends a stoppable run early.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { ClosedLoopResult, ClosedLoopSpec, LoadSpec, PacedResult, PacedSpec } from './load-spec';
import { summarize, wallNow } from './stats';

const emit = (event: object): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};

let stopRequested: (() => void) | undefined;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'stop') stopRequested?.();
});

function pathPicker(spec: ClosedLoopSpec): { next: () => string; wrapped: () => boolean; picked: () => number } {
  const { paths, pick = 'random' } = spec.request;
  let picked = 0;
  if (!paths || paths.length === 0) return { next: () => spec.request.path, wrapped: () => false, picked: () => picked };
  let i = spec.request.offset ?? 0;
  let wrapped = false;
  if (pick === 'once') {
    return {
      next: () => {
        if (i >= paths.length) {
          i = 0;
          wrapped = true;
        }
        picked += 1;
        return paths[i++]!;
      },
      wrapped: () => wrapped,
      picked: () => picked,
    };
  }
  return {
    next: () => {
      picked += 1;
      return paths[Math.floor(Math.random() * paths.length)]!;
    },
    wrapped: () => false,
    picked: () => picked,
  };
}

async function closedLoop(spec: ClosedLoopSpec): Promise<ClosedLoopResult> {
  const picker = pathPicker(spec);
  const varies = spec.request.paths !== undefined;
  // Keyed: the path a client's request took, read back when its response arrives (one request in flight per client;
  // autocannon calls onResponse just before its 'response' event, and builds the client's next request after both).
  let answeredPath = spec.request.path;
  const run = (
    seconds: number,
    record: boolean,
  ): Promise<{ result: autocannon.Result; latencies: number[]; timeline: [number, number][]; keyed: [string, number][] }> =>
    new Promise((resolve, reject) => {
      const latencies: number[] = [];
      const timeline: [number, number][] = [];
      const keyed: [string, number][] = [];
      const instance = autocannon(
        {
          url: spec.url,
          connections: spec.connections,
          duration: seconds,
          method: spec.request.method,
          headers: spec.request.headers,
          body: spec.request.body,
          requests: [
            {
              method: spec.request.method,
              path: spec.request.path,
              headers: spec.request.headers,
              ...(spec.request.body === undefined ? {} : { body: spec.request.body }),
              ...(varies
                ? {
                    setupRequest: (req: autocannon.Request, context: { path?: string }) => {
                      const path = picker.next();
                      if (spec.keyed) context.path = path;
                      return { ...req, path };
                    },
                  }
                : {}),
              ...(spec.keyed
                ? {
                    onResponse: (_status: number, _body: string, context?: { path?: string }) => {
                      answeredPath = context?.path ?? spec.request.path;
                    },
                  }
                : {}),
            },
          ],
        },
        (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve({ result, latencies, timeline, keyed })),
      );
      if (record) {
        // autocannon's own histogram is in whole milliseconds; these are exact.
        instance.on('response', (_client, statusCode, _bytes, responseTime) => {
          if (statusCode < 200 || statusCode > 299) return;
          latencies.push(responseTime);
          if (spec.timeline) timeline.push([wallNow(), responseTime]);
          if (spec.keyed) keyed.push([answeredPath, responseTime]);
        });
        if (spec.stoppable) stopRequested = () => instance.stop();
      }
    });

  if (spec.warmupSeconds > 0) await run(spec.warmupSeconds, false);
  emit({ event: 'measure' });
  const { result, latencies, timeline, keyed } = await run(spec.seconds, true);
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = v.count ?? 0;
  const ok = latencies.length;
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    mode: 'closed',
    seconds: result.duration,
    responses,
    ok,
    non2xx: responses - ok,
    errors: result.errors,
    statusCodes,
    rps: Math.round((ok / result.duration) * 10) / 10,
    latency: summarize(latencies),
    ...(spec.timeline ? { timeline } : {}),
    ...(picker.wrapped() ? { wrapped: true } : {}),
    picked: picker.picked(),
    ...(spec.raw ? { latencies } : {}),
    ...(spec.keyed ? { keyed } : {}),
  };
}

async function paced(spec: PacedSpec): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.maxSockets });
  const target = new URL(spec.url);
  // In the order sent (not answered), so a caller can cut a warm-up by position.
  const items: PacedResult['items'] = new Array<PacedResult['items'][number]>(spec.items.length);
  let maxSendLagMs = 0;
  emit({ event: 'measure' });
  const start = wallNow();
  const pending: Promise<void>[] = [];
  const send = (item: PacedSpec['items'][number], index: number): Promise<void> =>
    new Promise((resolve) => {
      const sentAt = wallNow();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          method: item.method,
          path: item.path,
          agent,
          headers: { ...item.headers, 'content-length': Buffer.byteLength(item.body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            items[index] = { key: item.key, status: res.statusCode ?? 0, sentAt, answeredAt: wallNow() };
            resolve();
          });
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        items[index] ??= { key: item.key, status: 0, sentAt, answeredAt: wallNow() };
        resolve();
      });
      req.end(item.body);
    });
  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = (): void => {
      const now = wallNow();
      const due = Math.min(spec.items.length, Math.floor(((now - start) / 1000) * spec.rate) + 1);
      for (; next < due; next++) {
        maxSendLagMs = Math.max(maxSendLagMs, now - (start + (next / spec.rate) * 1000));
        pending.push(send(spec.items[next]!, next));
      }
      if (next >= spec.items.length) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 1);
    tick();
  });
  await Promise.all(pending);
  agent.destroy();
  return { mode: 'paced', seconds: (wallNow() - start) / 1000, items, maxSendLagMs: Math.round(maxSendLagMs * 10) / 10 };
}

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadSpec;
  const result = spec.mode === 'closed' ? await closedLoop(spec) : await paced(spec);
  // A large result (a timeline) must be flushed before the exit.
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify({ event: 'result', result })}\n`, () => resolve()));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`load worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
