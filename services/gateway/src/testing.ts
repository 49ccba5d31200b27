// The service's test entry (`@pl/gateway/testing`): everything of the public entry plus the app's wiring, for
// in-process system tests in other folders. Only test code may import it (eslint.config.mjs); the admin CLI and
// the benchmarks keep to `@pl/gateway`, which starts nothing.
export * from './index';
export { startGateway } from './app';
export { UserRepository } from './data/user.repository';
export { mailLinks } from './domain/mail';
export { DailyReportMailRepository } from './data/daily-report-mail.repository';
export { DailyReportMailJob } from './entry/jobs/daily-report-mail.job';
export { LinksClient } from './data/links.client';
export { ShopsClient } from './data/shops.client';
export { ROLE_ACTIONS } from './domain/roles';
