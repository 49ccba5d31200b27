import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import {
  contextFromTraceparent,
  Counter,
  DURATION_BUCKETS,
  Histogram,
  inSpan,
  MODE_ATTRIBUTE,
  SpanKind,
  SpanStatusCode,
  type Registry,
} from '@pl/telemetry';
import type { AttemptContext, AttemptResult, WebhookSender } from '../domain/delivery';
import { parseRetryAfter } from '../domain/retry-schedule';
// Shared with the shops service, which applies the same rule at registration (the lead may move it to a lib).
import { isBlockedAddress } from '@pl/webhook-target';

/** How much of a response is kept for the attempt log; the rest is never read. */
const RESPONSE_HEAD_BYTES = 4096;

/**
 * How long a kept connection may sit idle before we close it: under the 5 s that Node and many servers
 * keep one, so we are rarely the one who reuses a connection the receiver is closing.
 */
const KEEP_ALIVE_IDLE_MS = 4000;

/** Errors of a kept connection that the receiver closed as we reused it: the request never reached it. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** Where webhook attempt counts and durations are recorded; none when absent. */
  metrics?: Registry;
}

/**
 * An attempt's outcome as a bounded label: `succeeded`, `http_4xx`/`http_5xx`/`http_3xx` (answered, not
 * 2xx), `timeout`, `blocked` (private target refused) or `connection_error` (DNS, refused, reset, bad URL).
 */
function attemptOutcome(r: AttemptResult): string {
  if (r.ok) return 'succeeded';
  if (r.statusCode !== null) return `http_${Math.floor(r.statusCode / 100)}xx`;
  if (r.error?.startsWith('timeout')) return 'timeout';
  if (r.error === BLOCKED) return 'blocked';
  return 'connection_error';
}

interface SenderMetrics {
  attempts: Counter<'outcome' | 'mode'>;
  duration: Histogram<'outcome' | 'mode'>;
}

function senderMetrics(registry: Registry): SenderMetrics {
  return {
    attempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook HTTP attempts, by outcome and mode (live or test)',
      labelNames: ['outcome', 'mode'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of webhook HTTP attempts, by outcome and mode (live or test)',
      labelNames: ['outcome', 'mode'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
  };
}

const BLOCKED = 'target address is private, loopback or link-local';

class BlockedTargetError extends Error {
  readonly code = 'EBLOCKEDTARGET';
}

/**
 * Resolves like dns.lookup but refuses non-public addresses at connect time: a host that resolved to a
 * public address at registration may point inside the platform's network now (DNS rebinding).
 */
function guardedLookup(allowPrivateTargets: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      if (!allowPrivateTargets && (addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address)))) {
        callback(new BlockedTargetError(BLOCKED), '', 0);
        return;
      }
      if (options.all) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      if (!first) {
        callback(new BlockedTargetError(BLOCKED), '', 0);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}

function describeError(err: unknown): string {
  if (err instanceof BlockedTargetError) return BLOCKED;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name does not resolve';
  if (typeof code === 'string') return `connection failed: ${code}`;
  return 'connection failed';
}

/**
 * Sends webhooks over node:http(s): no redirects followed, a time-out over the whole attempt, and at most
 * 4 KiB of the response read. A connection whose 2xx response was read to its end is kept for the next
 * attempt to that host (a TLS handshake and a connect saved per webhook); any other answer, and anything cut
 * short, closes it. The guarded lookup runs for every new connection; a kept one stays with the address it
 * was checked at.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly lookup: LookupFunction;
  private readonly metrics: SenderMetrics | undefined;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS });

  constructor(private readonly options: HttpSenderOptions) {
    this.lookup = guardedLookup(options.allowPrivateTargets);
    this.metrics = options.metrics ? senderMetrics(options.metrics) : undefined;
  }

  /** Closes the kept connections (at shutdown, after the last attempt). */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /**
   * One attempt in a `webhook send` span, the child of the trace stored with the delivery (the Kafka
   * message's consumer span), which records the mode, outcome and status code. The request itself goes out with
   * tracing suppressed: the http instrumentation would otherwise add `traceparent` (and any `tracestate` or
   * `baggage`) to it, handing our trace ids to the merchant's server, which gets the documented headers only.
   */
  async send(url: string, headers: Record<string, string>, body: Buffer, { traceparent, mode }: AttemptContext): Promise<AttemptResult> {
    const parent = traceparent ? contextFromTraceparent(traceparent) : context.active();
    const attributes = {
      'webhook.id': headers['webhook-id'] ?? '',
      'webhook.attempt': Number(headers['X-Webhook-Attempt'] ?? 0),
      [MODE_ATTRIBUTE]: mode,
    };
    const result = await inSpan('webhook send', { kind: SpanKind.INTERNAL, parent, attributes }, async (span) => {
      const r = await context.with(suppressTracing(context.active()), () => this.attempt(url, headers, body));
      span.setAttribute('webhook.outcome', attemptOutcome(r));
      if (r.statusCode !== null) span.setAttribute('http.response.status_code', r.statusCode);
      if (!r.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: r.error ?? `status ${r.statusCode}` });
      return r;
    });
    const outcome = attemptOutcome(result);
    this.metrics?.attempts.inc({ outcome, mode });
    this.metrics?.duration.observe({ outcome, mode }, result.durationMs / 1000);
    return result;
  }

  private attempt(url: string, headers: Record<string, string>, body: Buffer): Promise<AttemptResult> {
    const at = new Date();
    const started = performance.now();
    const { timeoutMs, allowPrivateTargets } = this.options;
    return new Promise<AttemptResult>((resolve) => {
      let req: ClientRequest | undefined;
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      let response: IncomingMessage | undefined;
      let socket: Socket | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;

      const finish = (error: string | null, timedOut = false, keepConnection = false): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!keepConnection) {
          req?.destroy();
          // At a response's end the request has already handed its socket back; it reaches the agent's pool
          // only on the next tick, so destroying it now keeps it out.
          socket?.destroy();
        }
        const statusCode = response?.statusCode ?? null;
        const ok = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
        const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400;
        const retryAfter = response?.headers['retry-after'];
        resolve({
          at,
          durationMs: Math.round(performance.now() - started),
          statusCode,
          error: error ?? (redirect ? 'redirect not followed' : null),
          responseHead: response ? Buffer.concat(chunks) : null,
          ok,
          throttled: timedOut || statusCode === 429,
          retryAfterMs: statusCode !== null && !ok ? parseRetryAfter(retryAfter, Date.now()) : null,
        });
      };

      let target: URL;
      try {
        target = new URL(url);
      } catch {
        finish('webhook url is invalid');
        return;
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        finish('webhook url must use http or https');
        return;
      }
      const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
      // An IP literal never goes through lookup, so it is judged here.
      if (!allowPrivateTargets && isIP(host) !== 0 && isBlockedAddress(host)) {
        finish(BLOCKED);
        return;
      }

      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const agent = target.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
      const go = (reuse: boolean): void => {
        const sent = send(target, { method: 'POST', headers, agent: reuse ? agent : false, lookup: this.lookup }, (res) => {
          response = res;
          res.on('data', (chunk: Buffer) => {
            const room = RESPONSE_HEAD_BYTES - kept;
            if (room > 0) {
              const part = chunk.subarray(0, room);
              chunks.push(part);
              kept += part.length;
            }
            if (kept >= RESPONSE_HEAD_BYTES) finish(null);
          });
          // A 2xx read to its end gives the connection back to the agent. Any other answer closes it: a receiver
          // that fails or redirects may not serve a second request on it (then the next attempt would hang).
          res.on('end', () => finish(null, false, res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300));
          // The receiver closing after its status line is still an answer.
          res.on('close', () => finish(null));
          res.on('error', () => finish(null));
        });
        req = sent;
        sent.on('socket', (s: Socket) => (socket = s));
        sent.on('error', (err) => {
          const code = (err as { code?: unknown }).code;
          // The receiver closed a kept connection as we reused it: the same attempt goes once more, on a fresh one.
          if (!response && !settled && reuse && sent.reusedSocket && typeof code === 'string' && STALE_CONNECTION.has(code)) {
            go(false);
            return;
          }
          finish(response ? null : describeError(err));
        });
        sent.end(body);
      };
      // With the status in hand a slow body does not make it a failure; without it, it is a time-out.
      timer = setTimeout(() => finish(response ? null : `timeout after ${timeoutMs} ms`, !response), timeoutMs);
      go(true);
    });
  }
}
