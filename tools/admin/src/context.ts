import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { BusClient, IdentityTokens } from '@pl/bus';
import { Db } from '@pl/db';
import { AppError, isAppError, unavailable } from '@pl/errors';
import { AccountRepository, GATEWAY_SCHEMA, setPayoutHold } from '@pl/gateway';
import {
  LatePaymentRepository,
  LedgerRepository,
  LinkRepository,
  LINKS_SCHEMA,
  PayoutBatchRepository,
  PayoutRepository,
  PayoutScheduleRunRepository,
  PayoutStatementRepository,
  RefundRepository,
} from '@pl/links';
import { DeliveryRepository, NOTIFIER_SCHEMA } from '@pl/notifier';
import { SecretBox, SHOPS_SCHEMA, ShopRepository, type ShopUseCaseDeps } from '@pl/shops';
import { loadAdminBusConfig, loadAdminSecretKey, type AdminConfig } from './config';

/** Lists and settings never open a webhook secret; storing one without the key fails before anything is written. */
class RefusingSecretBox extends SecretBox {
  constructor(private readonly problem: AppError) {
    super(randomBytes(32));
  }

  override seal(): Buffer {
    throw this.problem;
  }

  override open(): string {
    throw this.problem;
  }
}

/**
 * The owning services' repositories, opened on first use: the CLI reads and writes through the same code the
 * services use, never with SQL of its own. stdout belongs to the one result object, so logs go to stderr.
 */
export class AdminContext {
  private readonly log = pino({ level: process.env.ADMIN_LOG_LEVEL ?? 'silent' }, pino.destination({ fd: 2, sync: true }));
  /** One small pool per schema, shared by the repositories of that schema. */
  private readonly pools = new Map<string, Db>();
  private accountRepo?: AccountRepository;
  private shopDeps?: ShopUseCaseDeps & { shops: ShopRepository };
  private latePaymentRepo?: LatePaymentRepository;
  private linkRepo?: LinkRepository;
  private deliveryRepo?: DeliveryRepository;
  private nc?: NatsConnection;
  private busClient?: Promise<BusClient>;

  constructor(
    private readonly config: AdminConfig,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  accounts(): AccountRepository {
    this.accountRepo ??= new AccountRepository(this.open(GATEWAY_SCHEMA));
    return this.accountRepo;
  }

  shops(): ShopUseCaseDeps & { shops: ShopRepository } {
    this.shopDeps ??= {
      shops: new ShopRepository(this.open(SHOPS_SCHEMA), this.secretBox()),
      webhookPolicy: { allowPrivateTargets: this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
    };
    return this.shopDeps;
  }

  /**
   * The box that seals webhook secrets, with the shops service's key; without a usable key (the gateway's pod
   * holds none), a box that refuses every use with the configuration error, so only storing a secret fails.
   */
  private secretBox(): SecretBox {
    try {
      return SecretBox.fromBase64(loadAdminSecretKey(this.env));
    } catch (e) {
      if (!isAppError(e)) throw e;
      return new RefusingSecretBox(new AppError('validation', e.code, `Cannot store a webhook secret here: ${e.message}`));
    }
  }

  /** Late and other unresolved payments, in the links service's schema (payment:late, unresolved:list). */
  latePayments(): LatePaymentRepository {
    this.latePaymentRepo ??= new LatePaymentRepository(this.open(LINKS_SCHEMA));
    return this.latePaymentRepo;
  }

  /** Refunds, for the hand-over of an unresolved payment's refund to its provider (payment:late:resolve, unresolved:resolve). */
  refunds(): RefundRepository {
    return new RefundRepository(this.open(LINKS_SCHEMA));
  }

  /** Payouts: listed (payout:list), moved by the bank statement (payout:statement:import). */
  payouts(): PayoutRepository {
    return new PayoutRepository(this.open(LINKS_SCHEMA));
  }

  /** Batches of bank payouts (payout:batch:*). */
  payoutBatches(): PayoutBatchRepository {
    return new PayoutBatchRepository(this.open(LINKS_SCHEMA));
  }

  /** The bank statement lines already applied to payouts (payout:statement:import). */
  payoutStatementLines(): PayoutStatementRepository {
    return new PayoutStatementRepository(this.open(LINKS_SCHEMA));
  }

  /** The payout scheduler's decisions, read only (payout:schedule-runs). */
  payoutScheduleRuns(): PayoutScheduleRunRepository {
    return new PayoutScheduleRunRepository(this.open(LINKS_SCHEMA));
  }

  /** Stops or resumes an account's payouts (payout:hold, payout:release); false for an unknown account. */
  setPayoutHold(merchantId: string, onHold: boolean): Promise<boolean> {
    return setPayoutHold(this.open(GATEWAY_SCHEMA), merchantId, onHold);
  }

  /** The ledger, read only (ledger:verify). */
  ledger(): LedgerRepository {
    return new LedgerRepository(this.open(LINKS_SCHEMA));
  }

  /** Payment links, read only (link:show, and the owner of a link's deliveries). */
  links(): LinkRepository {
    this.linkRepo ??= new LinkRepository(this.open(LINKS_SCHEMA));
    return this.linkRepo;
  }

  /** The notifier's webhook delivery log, read only (deliveries:list). */
  deliveries(): DeliveryRepository {
    this.deliveryRepo ??= new DeliveryRepository(this.open(NOTIFIER_SCHEMA));
    return this.deliveryRepo;
  }

  /**
   * The platform bus, for moves that belong to a running service (payment:confirm goes through the
   * links service like a provider callback). Unlike the services, an operator's command does not wait
   * for NATS to come up: it fails at once with `unavailable`.
   */
  bus(): Promise<BusClient> {
    this.busClient ??= (async () => {
      const config = loadAdminBusConfig(this.env);
      try {
        this.nc = await connect({ servers: config.NATS_URL.split(','), name: 'admin-cli', maxReconnectAttempts: 0 });
      } catch {
        throw unavailable(`NATS at ${config.NATS_URL} is unreachable`);
      }
      return new BusClient(this.nc, config.BUS_NAMESPACE, new IdentityTokens(config.IDENTITY_TOKEN_SECRET), config.NATS_REQUEST_TIMEOUT_MS);
    })();
    return this.busClient;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...[...this.pools.values()].map((db) => db.close()), this.nc?.close() ?? Promise.resolve()]);
  }

  private open(schema: string): Db {
    let db = this.pools.get(schema);
    if (!db) {
      db = new Db({ url: this.config.DATABASE_URL, schema, max: 2, log: this.log });
      this.pools.set(schema, db);
    }
    return db;
  }
}
