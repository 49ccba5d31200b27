import { join } from 'node:path';
import type { Logger } from 'pino';
import { migrate } from '@pl/db';

export const LINKS_SCHEMA = 'links';

/** Applies the links service's migrations (payment_links) to its own schema. */
export const migrateLinks = (url: string, log: Logger): Promise<void> =>
  migrate({ url, schema: LINKS_SCHEMA, dir: join(__dirname, '..', '..', 'migrations'), log });
