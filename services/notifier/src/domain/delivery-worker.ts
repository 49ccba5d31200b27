import type { Logger } from 'pino';
import type { AttemptResult, AttemptVerdict, ClaimedDelivery, DeliveryQueue, WebhookSender, WebhookTargetSource } from './delivery';
import { nextRetryDelayMs, type RetryPolicy } from './retry-schedule';
import { webhookHeaders } from './webhook-signature';

export interface WorkerSettings {
  policy: RetryPolicy;
  /** Attempts in flight in this process. */
  concurrency: number;
  /** Attempts in flight to one endpoint (URL). */
  perEndpointConcurrency: number;
  pollIntervalMs: number;
  leaseMs: number;
  /** Wait before trying again when the shops service could not be asked (no attempt is counted). */
  lookupRetryMs: number;
}

const NO_URL = 'shop has no webhook url';

/**
 * Sends due webhook deliveries. Several replicas share the table: each claims due rows under a lease
 * (`FOR UPDATE SKIP LOCKED`), so a row goes to one worker, and a crashed worker's rows come back when
 * its lease runs out. Attempts run concurrently under a global bound and a bound per endpoint, so a
 * slow receiver ties up only its own slots. New deliveries wake it; a poll covers the rest.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly endpointLoad = new Map<string, number>();
  /** The URL each shop was last sent to: claims skip shops whose endpoint is full. */
  private readonly shopEndpoint = new Map<number, string>();
  private pollTimer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;
  private filling: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly targets: WebhookTargetSource,
    private readonly sender: WebhookSender,
    private readonly settings: WorkerSettings,
    private readonly log: Logger,
    private readonly random: () => number = Math.random,
  ) {}

  start(): void {
    this.pollTimer = setInterval(() => this.wake(), this.settings.pollIntervalMs);
    this.wake();
  }

  /** Looks for due deliveries now (new event stored, a resend, a free slot). */
  wake(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill().finally(() => (this.filling = undefined));
  }

  /** Takes no new work and waits, at most `graceMs`, for the attempts in flight to finish and be recorded. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.dueTimer);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    const settled = (async () => {
      await this.filling;
      await Promise.allSettled([...this.inFlight]);
    })();
    await Promise.race([settled, grace]);
    clearTimeout(timer);
  }

  private keyOf(shopId: number): string {
    return this.shopEndpoint.get(shopId) ?? `shop:${shopId}`;
  }

  private loadOf(key: string): number {
    return this.endpointLoad.get(key) ?? 0;
  }

  private addLoad(key: string, delta: number): void {
    const next = this.loadOf(key) + delta;
    if (next <= 0) this.endpointLoad.delete(key);
    else this.endpointLoad.set(key, next);
  }

  private async fill(): Promise<void> {
    const { concurrency, perEndpointConcurrency, leaseMs } = this.settings;
    try {
      do {
        this.again = false;
        const free = concurrency - this.inFlight.size;
        if (free <= 0 || this.stopped) return;
        const shops = [...this.shopEndpoint.keys()];
        const excludeShops = shops.filter((s) => this.loadOf(this.keyOf(s)) >= perEndpointConcurrency);
        const claims = await this.queue.claimDue({
          limit: free,
          excludeShops,
          leaseMs,
          choose: (due) => {
            const tentative = new Map<string, number>();
            const picked: string[] = [];
            for (const row of due) {
              if (picked.length >= free) break;
              const key = this.keyOf(row.shopId);
              const load = this.loadOf(key) + (tentative.get(key) ?? 0);
              if (load >= perEndpointConcurrency) continue;
              tentative.set(key, (tentative.get(key) ?? 0) + 1);
              picked.push(row.id);
            }
            return picked;
          },
        });
        for (const claim of claims) this.launch(claim);
        if (claims.length > 0 && claims.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } catch (err) {
      this.log.warn({ err }, 'claiming due webhook deliveries failed; the poll tries again');
    }
  }

  private launch(claim: ClaimedDelivery): void {
    const key = this.keyOf(claim.shopId);
    this.addLoad(key, 1);
    const run: Promise<void> = this.deliver(claim, key)
      .catch((err: unknown) => this.log.error({ err, delivery_id: claim.id }, 'webhook attempt could not be completed; its lease will expire'))
      .finally(() => {
        this.inFlight.delete(run);
        this.wake();
      });
    this.inFlight.add(run);
  }

  private async deliver(claim: ClaimedDelivery, reservedKey: string): Promise<void> {
    let key: string | null = reservedKey;
    try {
      let target: { url: string | null; secret: string | null };
      try {
        target = await this.targets.targetOf(claim.shopId);
      } catch (err) {
        this.log.warn({ err, delivery_id: claim.id, shop_id: claim.shopId }, 'webhook target unavailable; no attempt counted');
        await this.queue.release(claim, this.settings.lookupRetryMs);
        return;
      }
      const url = target.url;
      if (url !== null) {
        this.shopEndpoint.set(claim.shopId, url);
        // The claim reserved a slot under what it knew of the shop's endpoint; the URL it has now decides.
        if (url !== key || this.loadOf(url) > this.settings.perEndpointConcurrency) {
          this.addLoad(key, -1);
          key = null;
          if (this.loadOf(url) >= this.settings.perEndpointConcurrency) {
            // Another shop shares this endpoint and it is full: wait for a slot without an attempt.
            await this.queue.release(claim, 0);
            return;
          }
          key = url;
          this.addLoad(key, 1);
        }
      }
      const result = url === null ? noUrlResult() : await this.attempt(claim, url, target.secret);
      const verdict = this.verdictOf(claim, result);
      await this.queue.recordAttempt(claim, url, result, verdict);
      this.log.info(
        {
          delivery_id: claim.id,
          webhook_id: claim.webhookId,
          attempt: claim.attempt,
          status_code: result.statusCode,
          error: result.error,
          duration_ms: result.durationMs,
          outcome: verdict.status,
        },
        'webhook attempt',
      );
      if (verdict.status === 'pending') this.wakeAt(verdict.nextAttemptAt);
      if (result.ok && url !== null && (await this.queue.bringForward(url)) > 0) this.again = true;
    } finally {
      if (key !== null) this.addLoad(key, -1);
    }
  }

  private attempt(claim: ClaimedDelivery, url: string, secret: string | null): Promise<AttemptResult> {
    const headers = webhookHeaders({
      webhookId: claim.webhookId,
      event: claim.event,
      body: claim.body,
      secret,
      attempt: claim.attempt,
      timestamp: Math.floor(Date.now() / 1000),
    });
    return this.sender.send(url, headers, claim.body, claim.traceparent);
  }

  private verdictOf(claim: ClaimedDelivery, result: AttemptResult): AttemptVerdict {
    if (result.ok) return { status: 'succeeded' };
    const delay = nextRetryDelayMs(claim.attempt, result, this.settings.policy, this.random);
    if (delay === null) return { status: 'failed' };
    return { status: 'pending', nextAttemptAt: new Date(result.at.getTime() + result.durationMs + delay) };
  }

  /** One timer for the earliest retry this process scheduled, so short schedules need no fast poll. */
  private wakeAt(at: Date): void {
    const when = at.getTime();
    if (this.stopped || when >= this.dueAt) return;
    clearTimeout(this.dueTimer);
    this.dueAt = when;
    this.dueTimer = setTimeout(() => {
      this.dueAt = Number.POSITIVE_INFINITY;
      this.wake();
    }, Math.max(0, when - Date.now()));
  }
}

const noUrlResult = (): AttemptResult => ({
  at: new Date(),
  durationMs: 0,
  statusCode: null,
  error: NO_URL,
  responseHead: null,
  ok: false,
  throttled: false,
  retryAfterMs: null,
});
