/** One Jest run for the whole monorepo: SWC strips types (tsc checks them in `npm run typecheck`). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/tools', '<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    // Dependencies published only as ES modules: Node 26 require()s them natively, Jest's module registry does not
    // (not without --experimental-vm-modules), so SWC turns them into CommonJS for the tests.
    '^.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(content-type|raw-body|cockatiel)/)'],
  moduleNameMapper: {
    // A service's test entry (`@pl/<service>/testing`), which its package.json exports next to the public one.
    '^@pl/([a-z-]+)/testing$': '<rootDir>/services/$1/src/testing',
    '^@pl/([a-z-]+)$': ['<rootDir>/libs/$1/src', '<rootDir>/services/$1/src', '<rootDir>/tools/$1/src'],
  },
  testTimeout: 30000,
  // A migrated database that startSystem copies instead of migrating its own (tests/support/template-database.ts).
  globalSetup: '<rootDir>/tests/support/template-database.ts',
};
