import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { BusClient, IdentityTokens } from '@pl/bus';
import { Db } from '@pl/db';
import { unavailable } from '@pl/errors';
import { AccountRepository, GATEWAY_SCHEMA } from '@pl/gateway';
import { LatePaymentRepository, LINKS_SCHEMA } from '@pl/links';
import { SecretBox, SHOPS_SCHEMA, ShopRepository, type ShopUseCaseDeps } from '@pl/shops';
import { loadAdminBusConfig, type AdminConfig } from './config';

/**
 * The owning services' repositories, opened on first use: the CLI writes through the same code the
 * services use, never with SQL of its own. stdout belongs to the one result object, so logs go to stderr.
 */
export class AdminContext {
  private readonly log = pino({ level: process.env.ADMIN_LOG_LEVEL ?? 'silent' }, pino.destination({ fd: 2, sync: true }));
  private readonly pools: Db[] = [];
  private accountRepo?: AccountRepository;
  private shopDeps?: ShopUseCaseDeps & { shops: ShopRepository };
  private latePaymentRepo?: LatePaymentRepository;
  private nc?: NatsConnection;
  private busClient?: Promise<BusClient>;

  constructor(
    private readonly config: AdminConfig,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  accounts(): AccountRepository {
    this.accountRepo ??= new AccountRepository(this.open(GATEWAY_SCHEMA));
    return this.accountRepo;
  }

  shops(): ShopUseCaseDeps & { shops: ShopRepository } {
    this.shopDeps ??= {
      shops: new ShopRepository(this.open(SHOPS_SCHEMA), SecretBox.fromBase64(this.config.WEBHOOK_SECRET_KEY)),
      webhookPolicy: { allowPrivateTargets: this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
    };
    return this.shopDeps;
  }

  /** Late payments, read from the links service's schema (payment:late). */
  latePayments(): LatePaymentRepository {
    this.latePaymentRepo ??= new LatePaymentRepository(this.open(LINKS_SCHEMA));
    return this.latePaymentRepo;
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
    await Promise.allSettled([...this.pools.map((db) => db.close()), this.nc?.close() ?? Promise.resolve()]);
  }

  private open(schema: string): Db {
    const db = new Db({ url: this.config.DATABASE_URL, schema, max: 2, log: this.log });
    this.pools.push(db);
    return db;
  }
}
