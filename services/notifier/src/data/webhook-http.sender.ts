import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AttemptResult, WebhookSender } from '../domain/delivery';
import { parseRetryAfter } from '../domain/retry-schedule';
// Shared with the shops service, which applies the same rule at registration (the lead may move it to a lib).
import { isBlockedAddress } from '@pl/webhook-target';

/** How much of a response is kept for the attempt log; the rest is never read. */
export const RESPONSE_HEAD_BYTES = 4096;

export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
}

const BLOCKED = 'target address is private, loopback or link-local';

class BlockedTargetError extends Error {
  readonly code = 'EBLOCKEDTARGET';
}

/**
 * Resolves like dns.lookup but refuses non-public addresses at connect time: a host that resolved to a
 * public address at registration may point inside the platform's network now (DNS rebinding).
 */
export function guardedLookup(allowPrivateTargets: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (!allowPrivateTargets && (addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address)))) {
        return callback(new BlockedTargetError(BLOCKED), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new BlockedTargetError(BLOCKED), '', 0);
      return callback(null, first.address, first.family);
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
 * Sends webhooks over node:http(s): one fresh connection per attempt (the guarded lookup runs for every
 * one), no redirects followed, a time-out over the whole attempt, and at most 4 KiB of the response read.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly lookup: LookupFunction;

  constructor(private readonly options: HttpSenderOptions) {
    this.lookup = guardedLookup(options.allowPrivateTargets);
  }

  send(url: string, headers: Record<string, string>, body: Buffer): Promise<AttemptResult> {
    const at = new Date();
    const started = performance.now();
    const { timeoutMs, allowPrivateTargets } = this.options;
    return new Promise<AttemptResult>((resolve) => {
      let req: ClientRequest | undefined;
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      let response: IncomingMessage | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;

      const finish = (error: string | null, timedOut = false): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req?.destroy();
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
        return finish('webhook url is invalid');
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return finish('webhook url must use http or https');
      const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
      // An IP literal never goes through lookup, so it is judged here.
      if (!allowPrivateTargets && isIP(host) !== 0 && isBlockedAddress(host)) return finish(BLOCKED);

      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      req = send(target, { method: 'POST', headers, agent: false, lookup: this.lookup }, (res) => {
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
        res.on('end', () => finish(null));
        // The receiver closing after its status line is still an answer.
        res.on('close', () => finish(null));
        res.on('error', () => finish(null));
      });
      req.on('error', (err) => finish(response ? null : describeError(err)));
      // With the status in hand a slow body does not make it a failure; without it, it is a time-out.
      timer = setTimeout(() => finish(response ? null : `timeout after ${timeoutMs} ms`, !response), timeoutMs);
      req.end(body);
    });
  }
}
