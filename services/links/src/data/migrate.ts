import { join } from 'node:path';
import { serviceMigrations } from '@pl/db';

export const LINKS_SCHEMA = 'links';

/** Applies the links service's migrations (payment_links) to its own schema. */
export const migrateLinks = serviceMigrations(LINKS_SCHEMA, join(__dirname, '..', '..', 'migrations'));
