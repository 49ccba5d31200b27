import { randomUUID } from 'node:crypto';
import type {
  AttemptResult,
  AttemptVerdict,
  ClaimedDelivery,
  DeliveryQueue,
  EndpointRoom,
  WebhookSender,
  WebhookTarget,
  WebhookTargetSource,
} from './delivery';
import type { FreshDeliverySlots } from './payment-event';
import { NO_CRASH_POINTS, type CrashPoints } from './ports';
import { nextRetryDelayMs, type RetryPolicy } from './retry-schedule';
import { webhookHeaders } from './webhook-signature';
import type { WorkerLog } from './worker-log';

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
 * How long a freed slot waits before it looks for due work: at 600 deliveries/s with every slot busy, one
 * claim per freed slot was the database's busiest statement; a few milliseconds let a dozen share one.
 */
const FREED_SLOTS_CLAIM_AFTER_MS = 5;
/** The load key of a shop whose endpoint this process has not learnt yet. */
const UNRESOLVED = 'shop:';

/**
 * Sends due webhook deliveries. Several replicas share the table: each claims due rows under a lease
 * (`FOR UPDATE SKIP LOCKED`), so a row goes to one worker, and a crashed worker's rows come back when
 * its lease runs out. Attempts run concurrently under a global bound and a bound per endpoint, so a
 * slow receiver ties up only its own slots. New deliveries wake it, and so does a freed slot while due
 * deliveries wait for one; a timer covers the retries this process scheduled, and a poll the rest (other
 * replicas' work, expired leases).
 */
export class DeliveryWorker implements FreshDeliverySlots {
  private readonly inFlight = new Set<Promise<void>>();
  /** Slots reserved for deliveries being stored right now ({@link reserveFresh}); they count as taken. */
  private reserved = 0;
  /** The endpoint load key each reserved slot was counted under. */
  private readonly reservedKeys = new WeakMap<object, string>();
  private readonly endpointLoad = new Map<string, number>();
  /** The URL each shop was last sent to, and the shops of each URL: claims skip shops whose endpoint is full. */
  private readonly shopEndpoint = new Map<number, string>();
  private readonly endpointShops = new Map<string, Set<number>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;
  private filling: Promise<void> | undefined;
  private again = false;
  /** The last claim left due deliveries behind for want of a slot: a freed slot soon looks again. */
  private starved = false;
  private stopped = false;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly targets: WebhookTargetSource,
    private readonly sender: WebhookSender,
    private readonly settings: WorkerSettings,
    private readonly log: WorkerLog,
    private readonly random: () => number = Math.random,
    /** The crash tests' hook, told after a merchant answered 2xx and before the attempt is recorded. */
    private readonly crashPoints: CrashPoints = NO_CRASH_POINTS,
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

  /** Looks for due deliveries in a moment: slots freed within it share one claim. */
  private wakeSoon(): void {
    if (this.stopped || this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = undefined;
      this.wake();
    }, FREED_SLOTS_CLAIM_AFTER_MS);
  }

  /**
   * Reserves a slot per shop whose endpoint has room, as a claim would, for a delivery about to be stored:
   * stored already leased, it needs no claim query. New events thus go ahead of due deliveries still
   * waiting for a slot here; those are retries, whose time has come but whose order is not promised.
   */
  reserveFresh(shopIds: readonly number[]): ({ leaseToken: string; leaseMs: number } | null)[] {
    const { concurrency, perEndpointConcurrency, leaseMs } = this.settings;
    const leaseToken = randomUUID();
    return shopIds.map((shopId) => {
      const key = this.keyOf(shopId);
      if (this.stopped || this.inFlight.size + this.reserved >= concurrency || this.loadOf(key) >= perEndpointConcurrency) return null;
      this.reserved += 1;
      this.addLoad(key, 1);
      const slot = { leaseToken, leaseMs };
      this.reservedKeys.set(slot, key);
      return slot;
    });
  }

  /** Starts the deliveries stored with a reserved slot; gives back the slots of those not stored. */
  startFresh(reserved: readonly ({ leaseToken: string; leaseMs: number } | null)[], stored: readonly (ClaimedDelivery | null)[]): void {
    reserved.forEach((slot, i) => {
      const key = slot === null ? undefined : this.reservedKeys.get(slot);
      if (slot === null || key === undefined) return;
      this.reservedKeys.delete(slot);
      this.reserved -= 1;
      const claim = stored[i];
      if (claim) this.run(claim, key);
      else this.addLoad(key, -1);
    });
  }

  /** Takes no new work and waits, at most `graceMs`, for the attempts in flight to finish and be recorded. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.dueTimer);
    clearTimeout(this.soonTimer);
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
    return this.shopEndpoint.get(shopId) ?? `${UNRESOLVED}${shopId}`;
  }

  private learnEndpoint(shopId: number, url: string): void {
    const before = this.shopEndpoint.get(shopId);
    if (before === url) return;
    if (before !== undefined) {
      const shops = this.endpointShops.get(before);
      shops?.delete(shopId);
      if (shops?.size === 0) this.endpointShops.delete(before);
    }
    this.shopEndpoint.set(shopId, url);
    const shops = this.endpointShops.get(url) ?? new Set<number>();
    shops.add(shopId);
    this.endpointShops.set(url, shops);
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
        const free = concurrency - this.inFlight.size - this.reserved;
        if (free <= 0 || this.stopped) return;
        // Only endpoints with attempts in flight have less than a whole endpoint's room; shops are grouped by
        // the endpoint each was last sent to (until then, each shop is its own).
        const endpoints: EndpointRoom[] = [...this.endpointLoad].map(([key, load]) => ({
          shopIds: key.startsWith(UNRESOLVED) ? [Number(key.slice(UNRESOLVED.length))] : [...(this.endpointShops.get(key) ?? [])],
          room: Math.max(0, perEndpointConcurrency - load),
        }));
        const excludeShops = endpoints.filter((e) => e.room === 0).flatMap((e) => e.shopIds);
        const { claims, seen } = await this.queue.claimDue({
          limit: free,
          excludeShops,
          endpoints: endpoints.filter((e) => e.room > 0),
          perEndpoint: perEndpointConcurrency,
          leaseMs,
        });
        for (const claim of claims) this.launch(claim);
        // Rows of full endpoints were not even read, so any excluded shop may have some waiting.
        this.starved = claims.length === free || seen > claims.length || excludeShops.length > 0;
        if (claims.length > 0 && claims.length === free) this.again = true;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have come while claiming; narrowing cannot see it
      } while (this.again && !this.stopped);
    } catch (err) {
      this.log.warn({ err }, 'claiming due webhook deliveries failed; the poll tries again');
    }
  }

  private launch(claim: ClaimedDelivery): void {
    const key = this.keyOf(claim.shopId);
    this.addLoad(key, 1);
    this.run(claim, key);
  }

  /** Sends a claimed delivery whose slot is already counted under `key`. */
  private run(claim: ClaimedDelivery, key: string): void {
    const run: Promise<void> = this.deliver(claim, key)
      .catch((err: unknown) =>
        this.log.error({ err, delivery_id: claim.id, mode: claim.mode }, 'webhook attempt could not be completed; its lease will expire'),
      )
      .finally(() => {
        this.inFlight.delete(run);
        // Without due work waiting, a freed slot costs no claim query: new work wakes the worker itself.
        if (this.starved) this.wakeSoon();
      });
    this.inFlight.add(run);
  }

  private async deliver(claim: ClaimedDelivery, reservedKey: string): Promise<void> {
    let key: string | null = reservedKey;
    try {
      let target: WebhookTarget;
      try {
        target = await this.targets.targetOf(claim.shopId);
      } catch (err) {
        this.log.warn({ err, delivery_id: claim.id, shop_id: claim.shopId, mode: claim.mode }, 'webhook target unavailable; no attempt counted');
        await this.queue.release(claim, this.settings.lookupRetryMs);
        this.wakeAt(new Date(Date.now() + this.settings.lookupRetryMs));
        return;
      }
      const url = target.url;
      if (url !== null) {
        this.learnEndpoint(claim.shopId, url);
        // The claim reserved a slot under what it knew of the shop's endpoint; the URL it has now decides.
        if (url !== key || this.loadOf(url) > this.settings.perEndpointConcurrency) {
          this.addLoad(key, -1);
          key = null;
          if (this.loadOf(url) >= this.settings.perEndpointConcurrency) {
            // Another shop shares this endpoint and it is full: wait for a slot without an attempt.
            await this.queue.release(claim, 0);
            this.starved = true;
            return;
          }
          key = url;
          this.addLoad(key, 1);
        }
      }
      const result = url === null ? noUrlResult() : await this.attempt(claim, url, target);
      if (result.ok) this.crashPoints.reached('notifier.after-send-before-record');
      const verdict = this.verdictOf(claim, result);
      const broughtForward = await this.queue.recordAttempt(claim, url, result, verdict);
      this.log.info(
        {
          delivery_id: claim.id,
          webhook_id: claim.webhookId,
          mode: claim.mode,
          attempt: claim.attempt,
          status_code: result.statusCode,
          error: result.error,
          duration_ms: result.durationMs,
          outcome: verdict.status,
        },
        'webhook attempt',
      );
      if (verdict.status === 'pending') this.wakeAt(verdict.nextAttemptAt);
      if (broughtForward > 0) this.starved = true;
    } finally {
      if (key !== null) this.addLoad(key, -1);
    }
  }

  private attempt(claim: ClaimedDelivery, url: string, target: WebhookTarget): Promise<AttemptResult> {
    const headers = webhookHeaders({
      webhookId: claim.webhookId,
      event: claim.event,
      body: claim.body,
      secret: target.secret,
      previousSecret: target.previousSecret,
      attempt: claim.attempt,
      timestamp: Math.floor(Date.now() / 1000),
    });
    return this.sender.send(url, headers, claim.body, { traceparent: claim.traceparent, mode: claim.mode });
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
    this.dueTimer = setTimeout(
      () => {
        this.dueAt = Number.POSITIVE_INFINITY;
        this.wake();
      },
      Math.max(0, when - Date.now()),
    );
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
