import { join } from 'node:path';
import type { Logger } from 'pino';
import { migrate } from '@pl/db';

export const GATEWAY_SCHEMA = 'gateway';

/** Applies the gateway's migrations (merchants, API keys) to its own schema. */
export const migrateGateway = (url: string, log: Logger): Promise<void> =>
  migrate({ url, schema: GATEWAY_SCHEMA, dir: join(__dirname, '..', '..', 'migrations'), log });
