import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { publishSoon } from './publish-batch';

/** Why a request got no reply: a time-out, nobody serving the subject, or no connection. */
export class NoReply extends Error {}

interface Waiting {
  resolve(reply: Uint8Array): void;
  reject(reason: NoReply): void;
  timer: NodeJS.Timeout;
}

/**
 * Request-reply over one wildcard inbox subscription, as `nc.request` does, without its cost per request:
 * nats.js builds two or three Error objects (stack traces included) for every request, even one that
 * succeeds, which showed up at several percent of the gateway's CPU under load.
 */
export class RequestMux {
  private prefix: string | undefined;
  private readonly waiting = new Map<string, Waiting>();
  private next = 0;

  constructor(private readonly nc: NatsConnection) {}

  /** The reply's payload; rejects with {@link NoReply} on time-out, no responder or a closed connection. */
  request(subject: string, data: string, headers: MsgHdrs, timeoutMs: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const prefix = this.inbox();
      const token = (this.next++).toString(36);
      const timer = setTimeout(() => this.settle(token)?.reject(new NoReply('timed out')), timeoutMs);
      this.waiting.set(token, { resolve, reject, timer });
      publishSoon(() => {
        try {
          this.nc.publish(subject, data, { reply: prefix + token, headers });
        } catch {
          this.settle(token)?.reject(new NoReply('not connected'));
        }
      });
    });
  }

  private inbox(): string {
    if (this.prefix !== undefined) return this.prefix;
    const prefix = `${createInbox()}.`;
    this.nc.subscribe(`${prefix}*`, {
      callback: (err, msg) => (err ? this.failAll() : this.onReply(prefix, msg)),
    });
    void this.nc.closed().then(() => this.failAll());
    this.prefix = prefix;
    return prefix;
  }

  private onReply(prefix: string, msg: Msg): void {
    const waiting = this.settle(msg.subject.slice(prefix.length));
    if (!waiting) return;
    // NATS answers a request that no one serves with an empty message carrying status 503.
    if (msg.data.length === 0 && msg.headers?.code === 503) waiting.reject(new NoReply('no responders'));
    else waiting.resolve(msg.data);
  }

  /** Takes a request off the waiting list (once), with its timer stopped. */
  private settle(token: string): Waiting | undefined {
    const waiting = this.waiting.get(token);
    if (!waiting) return undefined;
    this.waiting.delete(token);
    clearTimeout(waiting.timer);
    return waiting;
  }

  private failAll(): void {
    for (const token of [...this.waiting.keys()]) this.settle(token)?.reject(new NoReply('connection closed'));
  }
}
