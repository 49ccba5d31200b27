export { startLinks } from './app';
export { loadConfig, type LinksConfig } from './config';
export { migrateLinks, LINKS_SCHEMA } from './data/migrate';
