import { join } from 'node:path';
import type { Logger } from 'pino';
import { migrate } from '@pl/db';

export const SHOPS_SCHEMA = 'shops';

/** Applies the shops service's migrations (shops, cashier keys) to its own schema. */
export const migrateShops = (url: string, log: Logger): Promise<void> =>
  migrate({ url, schema: SHOPS_SCHEMA, dir: join(__dirname, '..', '..', 'migrations'), log });
