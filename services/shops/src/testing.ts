// The service's test entry (`@pl/shops/testing`): everything of the public entry plus the app's wiring, for
// in-process tests of the other services and the system tests. Only test code may import it (eslint.config.mjs);
// the admin CLI and the benchmarks keep to `@pl/shops`, which starts nothing.
export * from './index';
export { startShops } from './app';
