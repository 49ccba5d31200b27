import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Client } from 'pg';
import { BusClient, BusServer, IdentityTokens, connectNats, createEventPublisher, type EventPublisher } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { isLive, subjects, type EventType, type Identity, type Mode, type PaymentSucceededEvent, type PlatformEvent } from '@pl/contracts';
import { Db } from '@pl/db';
import { notFound } from '@pl/errors';
import { createTestDatabase, eventually, uniqueNamespace, type TestDatabase } from '@pl/testing';
import type { NatsConnection } from 'nats';
import { loadConfig as loadShopsConfig, migrateShops, SecretBox, ShopRepository, SHOPS_SCHEMA, startShops } from '@pl/shops/testing';
import { startNotifier } from '../src/app';
import { loadConfig } from '../src/config';
import { migrateNotifier } from '../src/data/migrate';

const log = pino({ level: 'silent' });
const IDENTITY_SECRET = 'notifier-component-test-identity-secret-0123456789';

/** Settings that shrink the schedule so a whole series runs in well under a second. */
const FAST_ENV: Record<string, string> = {
  WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50,50,50',
  WEBHOOK_MIN_DELAY_AFTER_THROTTLE_MS: '100',
  WEBHOOK_TIMEOUT_MS: '1000',
  NATS_REQUEST_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '2500',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  KAFKA_SESSION_TIMEOUT_MS: '6000',
};

export interface AttemptRow {
  series: number;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_head: Buffer | null;
}

export interface EventOptions {
  merchantId?: string;
  linkId?: string;
  mode?: Mode;
  at?: string;
}

/** Postgres, a shops service, Kafka and (unless asked not to) a notifier, all private to one test file. */
export class TestSystem {
  readonly merchantId = randomUUID();
  notifier: RunningService | undefined;
  private shopsService: RunningService | undefined;
  private shopsDb: Db | undefined;
  private shops: ShopRepository | undefined;
  private publisher: EventPublisher | undefined;
  private nc: NatsConnection | undefined;
  bus: BusClient | undefined;
  private standIn: BusServer | undefined;
  pg: Client | undefined;
  database: TestDatabase | undefined;
  readonly namespace: string;
  readonly topic: string;
  env: Record<string, string> = {};

  constructor(
    private readonly label: string,
    private readonly overrides: Record<string, string> = {},
  ) {
    this.namespace = uniqueNamespace(label);
    this.topic = `payment-events-${this.namespace}`;
  }

  /**
   * `withShops: false` starts no shops service: the test answers the shops subjects itself ({@link standInShops}),
   * e.g. with a webhook target in a state the real service reaches only by a rotation.
   */
  async start({ withNotifier = true, withShops = true } = {}): Promise<this> {
    this.database = await createTestDatabase(this.label);
    await migrateShops(this.database.url, log);
    await migrateNotifier(this.database.url, log);
    const common = {
      NODE_ENV: 'test',
      DATABASE_URL: this.database.url,
      BUS_NAMESPACE: this.namespace,
      IDENTITY_TOKEN_SECRET: IDENTITY_SECRET,
      OPS_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    if (withShops) {
      const shopsConfig = loadShopsConfig(common);
      this.shopsService = await startShops(shopsConfig, log);
      this.shopsDb = new Db({ url: this.database.url, schema: SHOPS_SCHEMA, log });
      this.shops = new ShopRepository(this.shopsDb, SecretBox.fromBase64(shopsConfig.WEBHOOK_SECRET_KEY));
    }
    const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
    this.env = {
      ...common,
      ...FAST_ENV,
      KAFKA_BROKERS: brokers,
      PAYMENT_EVENTS_TOPIC: this.topic,
      KAFKA_GROUP_ID: `notifier-${this.namespace}`,
      ...this.overrides,
    };
    if (withNotifier) this.notifier = await startNotifier(loadConfig(this.env), log);
    this.publisher = createEventPublisher({ brokers: brokers.split(','), clientId: `test-${this.namespace}`, log });
    this.pg = new Client({ connectionString: this.database.url });
    await this.pg.connect();
    this.nc = await connectNats('nats://127.0.0.1:4222', `test-${this.namespace}`, log);
    this.bus = new BusClient(this.nc, this.namespace, new IdentityTokens(IDENTITY_SECRET));
    return this;
  }

  /** A server on this test's namespace where the test registers its own handlers of shops subjects. */
  standInShops(): BusServer {
    this.standIn ??= new BusServer(this.nc!, this.namespace, new IdentityTokens(IDENTITY_SECRET), 'shops', log);
    return this.standIn;
  }

  /**
   * The links service as a list's link filter meets it here, where none runs: it knows no link, so a filter by a
   * link without rows in the notifier is not found (one with rows is judged by them).
   */
  async linksKnowNoLink(): Promise<void> {
    this.standInShops().handle(subjects.linksGet, () => Promise.reject(notFound('Payment link not found')));
    await this.flushBus();
  }

  /** Resolves once the NATS server has every subscription and message this test's connection sent so far. */
  async flushBus(): Promise<void> {
    await this.nc!.flush();
  }

  async stop(): Promise<void> {
    await this.notifier?.stop();
    await this.standIn?.drain();
    await this.publisher?.close();
    await this.nc?.close();
    await this.shopsService?.stop();
    await this.shopsDb?.close();
    await this.pg?.end();
    await this.database?.drop();
  }

  async createShop(url: string | null, secret: string | null, merchantId = this.merchantId): Promise<number> {
    const created = await this.shops!.createShop({
      merchant_id: merchantId,
      name: `Shop ${randomUUID().slice(0, 8)}`,
      status: 'approved',
      fee_payer: 'merchant',
      crypto_bps: 100,
      sbp_bps: 100,
      webhook_url: url,
      webhook_secret: secret,
    });
    return created.shop.id;
  }

  /** Changes a shop's webhook target in the shops' data, as the admin CLI or a merchant would. */
  async updateShop(
    shopId: number,
    patch: { webhook_url?: string | null; webhook_secret?: string | null; webhook_events?: EventType[] },
  ): Promise<void> {
    await this.shops!.updateShop(shopId, patch);
  }

  /**
   * Changes a shop's event subscription as its merchant does (shops.update, the gateway's path): resolves when the
   * shops service answers, which it does after announcing the change, so the notifier has dropped its copy by then.
   */
  async changeSubscription(shopId: number, webhookEvents: EventType[], merchantId = this.merchantId): Promise<void> {
    const merchant: Identity = { kind: 'merchant', merchant_id: merchantId, auth: 'session', mode: 'live', email_confirmed: true };
    await this.bus!.request(subjects.shopsUpdate, { shop_id: shopId, webhook_events: webhookEvents }, merchant);
  }

  /** A payment of a link in `mode` (the links service's event of a test link says livemode false). */
  event(shopId: number, merchantId: string = this.merchantId, linkId: string = randomUUID(), mode: Mode = 'live'): PaymentSucceededEvent {
    return {
      event_id: randomUUID(),
      event: 'payment.succeeded',
      occurred_at: '2026-11-22T12:00:00+03:00',
      merchant_id: merchantId,
      livemode: isLive(mode),
      data: {
        payment_link_id: linkId,
        id: linkId,
        shop_id: shopId,
        order_id: 'order-1',
        amount: '100.00',
        merchant_credit: '99.00',
        status: 'paid',
        paid_at: '2026-11-22T12:00:00+03:00',
      },
    };
  }

  /**
   * An event of any type about a link of `shopId` in `mode`, as the links service writes it (a refund event's data
   * is the refund object).
   */
  anyEvent(
    type: EventType,
    shopId: number,
    { merchantId = this.merchantId, linkId = randomUUID(), mode = 'live', at = '2026-11-22T12:00:00+03:00' }: EventOptions = {},
  ): PlatformEvent {
    const envelope = { event_id: randomUUID(), occurred_at: at, merchant_id: merchantId, livemode: isLive(mode) };
    const link = { payment_link_id: linkId, id: linkId, shop_id: shopId, order_id: 'order-1', amount: '100.00', merchant_credit: '99.00' };
    const refund = {
      id: randomUUID(),
      payment_link_id: linkId,
      shop_id: shopId,
      amount: '40.00',
      currency: 'RUB' as const,
      reason: null,
      destination: null,
      gateway_refund_id: 'sbr_1',
      late_payment_id: null,
      livemode: isLive(mode),
      created_at: at,
      updated_at: at,
    };
    switch (type) {
      case 'payment.succeeded':
        return { ...envelope, event: type, data: { ...link, status: 'paid', paid_at: at } };
      case 'payment.failed':
        return { ...envelope, event: type, data: { ...link, status: 'failed', failed_at: at, failure_reason: 'provider_failed' } };
      case 'payment_link.canceled':
        return { ...envelope, event: type, data: { ...link, status: 'canceled', canceled_at: at } };
      case 'payment_link.expired':
        return { ...envelope, event: type, data: { ...link, status: 'expired', expired_at: at } };
      case 'refund.succeeded':
        return { ...envelope, event: type, data: { ...refund, status: 'succeeded', failure_reason: null } };
      case 'refund.failed':
        return { ...envelope, event: type, data: { ...refund, status: 'failed', failure_reason: 'rejected by the provider' } };
      case 'payment.late_settled':
        return {
          ...envelope,
          event: type,
          data: { ...link, status: 'expired', late_payment_id: randomUUID(), gateway_payment_id: 'sbp_late_1', settled_at: at },
        };
      case 'unresolved_payment.created':
      case 'unresolved_payment.settled':
      case 'unresolved_payment.refunded':
        return {
          ...envelope,
          event: type,
          data: {
            id: randomUUID(),
            shop_id: shopId,
            payment_link_id: linkId,
            reason: 'overpaid',
            provider: 'sandbox',
            gateway_payment_id: 'sbp_over_1',
            amount: '5.00',
            payer_currency: null,
            payer_crypto_amount: null,
            status: type === 'unresolved_payment.created' ? 'unresolved' : type === 'unresolved_payment.settled' ? 'settled' : 'refunded',
            refund_id: null,
            created_at: at,
            resolved_at: type === 'unresolved_payment.created' ? null : at,
            livemode: isLive(mode),
          },
        };
      case 'payout.created':
      case 'payout.paid':
      case 'payout.failed':
      case 'payout.canceled':
        return {
          ...envelope,
          event: type,
          data: {
            id: randomUUID(),
            shop_id: shopId,
            amount: '100.00',
            fee: '0.00',
            currency: 'RUB',
            destination: { id: randomUUID(), type: 'bank_account', masked: '•••• 1234' },
            status: type === 'payout.created' ? 'approved' : type === 'payout.paid' ? 'paid' : type === 'payout.failed' ? 'failed' : 'canceled',
            description: null,
            failure_reason: null,
            created_by: null,
            approved_by: null,
            created_at: at,
            approved_at: at,
            paid_at: type === 'payout.paid' ? at : null,
            livemode: isLive(mode),
          },
        };
    }
  }

  /** Publishes as the links relay does: key = link id (a payout's: the payout id), header `event-id`. */
  async publish(
    event: PlatformEvent,
    value = JSON.stringify(event),
    key = 'payment_link_id' in event.data ? event.data.payment_link_id : event.data.id,
  ): Promise<void> {
    await this.publisher!.publish(this.topic, [{ key, value, headers: { 'event-id': event.event_id } }]);
  }

  async delivery(eventId: string): Promise<{ id: string; status: string; webhook_id: string; attempts_made: number; series: number } | undefined> {
    const { rows } = await this.pg!.query('SELECT id, status, webhook_id, attempts_made, series FROM notifier.deliveries WHERE event_id = $1', [
      eventId,
    ]);
    return rows[0];
  }

  async attempts(eventId: string): Promise<AttemptRow[]> {
    const { rows } = await this.pg!.query<AttemptRow>(
      `SELECT a.series, a.attempt, a.status_code, a.error, a.duration_ms, a.response_head
         FROM notifier.delivery_attempts a JOIN notifier.deliveries d ON d.id = a.delivery_id
        WHERE d.event_id = $1 ORDER BY a.at, a.series, a.attempt`,
      [eventId],
    );
    return rows;
  }

  /** Waits until the event's delivery reaches a final status (the row is written after the receiver answered). */
  async settled(eventId: string, timeoutMs = 20_000): Promise<string> {
    let status: string | undefined;
    await eventually(
      async () => {
        status = (await this.delivery(eventId))?.status;
        return status !== undefined && status !== 'pending';
      },
      () => `delivery of ${eventId} settles (still ${status ?? 'missing'})`,
      timeoutMs,
      25,
    );
    return status!;
  }

  /** Waits until the delivery `id` reaches a final status (for deliveries without an event, like `webhook.test`). */
  async settledById(id: string, timeoutMs = 20_000): Promise<string> {
    let status: string | undefined;
    await eventually(
      async () => {
        const { rows } = await this.pg!.query<{ status: string }>('SELECT status FROM notifier.deliveries WHERE id = $1', [id]);
        status = rows[0]?.status;
        return status !== undefined && status !== 'pending';
      },
      () => `delivery ${id} settles (still ${status ?? 'missing'})`,
      timeoutMs,
      25,
    );
    return status!;
  }

  merchant(merchantId = this.merchantId, mode: Mode = 'live'): Identity {
    return { kind: 'merchant', merchant_id: merchantId, auth: 'api_key', email_confirmed: true, mode };
  }
}

/** The link an event is about (a payout's event names none: a test that asks for one has a bug). */
export function linkIdOf(event: PlatformEvent): string {
  if (!('payment_link_id' in event.data)) throw new Error(`${event.event} names no payment link`);
  return event.data.payment_link_id;
}
