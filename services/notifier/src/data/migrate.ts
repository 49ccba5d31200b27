import { join } from 'node:path';
import type { Logger } from 'pino';
import { migrate } from '@pl/db';

export const NOTIFIER_SCHEMA = 'notifier';

/** Applies the notifier's migrations (received events, later deliveries and attempts) to its own schema. */
export const migrateNotifier = (url: string, log: Logger): Promise<void> =>
  migrate({ url, schema: NOTIFIER_SCHEMA, dir: join(__dirname, '..', '..', 'migrations'), log });
