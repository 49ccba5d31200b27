import pino from 'pino';
import { Db } from '@pl/db';
import { AccountRepository } from '../../../services/gateway/src/data/account.repository';
import { GATEWAY_SCHEMA } from '../../../services/gateway/src/data/migrate';
import { SHOPS_SCHEMA } from '../../../services/shops/src/data/migrate';
import { ShopRepository } from '../../../services/shops/src/data/shop.repository';
import type { ShopUseCaseDeps } from '../../../services/shops/src/domain/create-shop';
import { SecretBox } from '../../../services/shops/src/domain/secret-box';
import type { AdminConfig } from './config';

/**
 * The owning services' repositories, opened on first use: the CLI writes through the same code the
 * services use, never with SQL of its own. stdout belongs to the one result object, so logs go to stderr.
 */
export class AdminContext {
  private readonly log = pino({ level: process.env.ADMIN_LOG_LEVEL ?? 'silent' }, pino.destination({ fd: 2, sync: true }));
  private readonly pools: Db[] = [];
  private accountRepo?: AccountRepository;
  private shopDeps?: ShopUseCaseDeps & { shops: ShopRepository };

  constructor(private readonly config: AdminConfig) {}

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

  async close(): Promise<void> {
    await Promise.allSettled(this.pools.map((db) => db.close()));
  }

  private open(schema: string): Db {
    const db = new Db({ url: this.config.DATABASE_URL, schema, max: 2, log: this.log });
    this.pools.push(db);
    return db;
  }
}
