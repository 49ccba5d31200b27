import { join } from 'node:path';
import { serviceMigrations } from '@pl/db';

export const SHOPS_SCHEMA = 'shops';

/** Applies the shops service's migrations (shops, cashier keys) to its own schema. */
export const migrateShops = serviceMigrations(SHOPS_SCHEMA, join(__dirname, '..', '..', 'migrations'));
