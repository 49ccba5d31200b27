import { join } from 'node:path';
import { serviceMigrations } from '@pl/db';

export const GATEWAY_SCHEMA = 'gateway';

/** Applies the gateway's migrations (merchants, API keys) to its own schema. */
export const migrateGateway = serviceMigrations(GATEWAY_SCHEMA, join(__dirname, '..', '..', 'migrations'));
