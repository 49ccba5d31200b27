import { join } from 'node:path';
import { serviceMigrations } from '@pl/db';

export const NOTIFIER_SCHEMA = 'notifier';

/** Applies the notifier's migrations (received events, later deliveries and attempts) to its own schema. */
export const migrateNotifier = serviceMigrations(NOTIFIER_SCHEMA, join(__dirname, '..', '..', 'migrations'));
