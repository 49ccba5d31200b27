// ESLint flat config: typescript-eslint's strict type-aware rules for all TypeScript, plus the layering
// rules of the architecture (CONTRIBUTING.md, "Where code goes"), so a wrong import fails `npm test` instead of review.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Packages that tie code to a transport, a database or a logger: a use case in `domain/` gets what it needs
// through its parameters, so it runs behind HTTP, NATS and Kafka alike and is tested without servers.
const INFRASTRUCTURE_PACKAGES = ['express', 'express/**', 'nats', 'kafkajs', 'pg', 'pg/**', 'pg-*', 'redis', '@redis/*', 'pino', 'pino-*'];

// An import of a service's code written as anything but its package name (`@pl/<service>`) or its test entry
// (`@pl/<service>/testing`): a relative path into services/<service>/src, or a deep `@pl/<service>/src/...`.
const SERVICE_PATH_IMPORT = '!@pl/*{,/testing}';

export default defineConfig(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '.local/**', 'test-results/**', 'coverage/**', 'libs/client/src/schema.ts'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    extends: [tseslint.configs.strictTypeChecked, tseslint.configs.stylisticTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Integers (kopecks, ports, counts) print unambiguously; objects, undefined and booleans in text stay errors.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `() => res.end()` and `(done) => server.close(done)` read as intended; void used as a value is still an error.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Its fix turns `x as T` into `x!`, which strict's no-non-null-assertion then forbids: the two pull apart.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // `header || undefined`, `env.X?.trim() || fallback`: an empty string means "not given" there, on purpose.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // A `let` that a callback declared earlier reads (clearTimeout(timer) in finish()) must stay a `let`:
      // moving it to its one assignment would put that read in the temporal dead zone.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // The house convention for a deliberately unused name is a leading underscore; `{ secret: _s, ...rest }` omits a key.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read HTTP bodies, JSON lines and mock calls, which are `any` by nature; the assertion that follows
    // is the type check. A wrong `!` in a test throws and fails that test, which is what it should do.
    files: ['**/*.test.ts', 'services/*/test/**', 'tests/**', 'libs/testing/**', 'tools/*/test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `let sys: System` set in beforeAll is still undefined in afterAll when beforeAll failed, so teardown
      // guards with `sys?.stop()` although the declared type says it cannot be missing.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Fakes implement async interfaces (`resolve: async () => [...]`) and have nothing to await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The benchmarks index into samples and results they have just produced; a wrong `!` fails the run.
    files: ['bench/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Plain JavaScript: a few Node scripts and the checkout page's browser script; no type information.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }] },
  },
  {
    files: ['services/gateway/src/entry/checkout/assets/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
  {
    // The merchant dashboard: a Preact app that Vite bundles for the browser (services/gateway/dashboard/tsconfig.json).
    files: ['services/gateway/dashboard/src/**'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The architecture. Elements are matched from the left of the path, first descriptor wins.
    files: ['**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' }, node: true },
      'boundaries/elements': [
        { type: 'domain', pattern: 'services/*/src/domain', capture: ['service'] },
        { type: 'service', pattern: 'services/*/src', capture: ['service'] },
        { type: 'service-test', pattern: 'services/*/test', capture: ['service'] },
        // Anything else of a service (its built dist/ through `@pl/<service>`, its migrations).
        { type: 'service-package', pattern: 'services/*', capture: ['service'] },
        { type: 'lib', pattern: 'libs/*', capture: ['lib'] },
        { type: 'tool', pattern: 'tools/*', capture: ['tool'] },
        { type: 'bench', pattern: 'bench' },
        { type: 'system-test', pattern: 'tests' },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          // External packages too: the domain rule below is about them.
          checkAllOrigins: true,
          policies: [
            {
              // A service's code imports no other service: they talk over NATS and Kafka, with libs/contracts.
              from: { element: { types: ['service', 'domain'] } },
              disallow: {
                to: {
                  element: {
                    types: ['service', 'domain', 'service-test', 'service-package'],
                    captured: { service: '!{{ from.captured.service }}' },
                  },
                },
              },
              message: 'A service imports no other service: call it over NATS or Kafka with a libs/contracts subject or event.',
            },
            {
              // ...nor the operators' tools, the benchmarks or the system tests built on top of it.
              from: { element: { types: ['service', 'domain'] } },
              disallow: { to: { element: { types: ['tool', 'bench', 'system-test'] } } },
              message: 'A service imports no tool, benchmark or system test.',
            },
            {
              // Whatever sits outside a service (system tests, tools, benchmarks) reaches its src/ only through
              // its package: `@pl/<service>` (src/index.ts) or, for tests, `@pl/<service>/testing`
              // (src/testing.ts). A path into src/ would tie them to files the service is free to move.
              from: { element: { types: ['system-test', 'tool', 'bench'] } },
              disallow: { to: { element: { types: ['service', 'domain'] } }, dependency: { source: SERVICE_PATH_IMPORT } },
              message: "Import a service through its package, '@pl/<service>' or (from tests) '@pl/<service>/testing', not a path into its src/.",
            },
            {
              // The same for a service's tests that start another service in-process; their own src/ stays theirs.
              from: { element: { type: 'service-test' } },
              disallow: {
                to: { element: { types: ['service', 'domain'], captured: { service: '!{{ from.captured.service }}' } } },
                dependency: { source: SERVICE_PATH_IMPORT },
              },
              message: "Import another service through its package, '@pl/<service>/testing', not a path into its src/.",
            },
            {
              // The operators' CLI and the benchmarks use a service through its public entry (`@pl/<service>`,
              // its src/index.ts), so what they depend on is what the service chose to export; the test entry
              // (`@pl/<service>/testing`, with the app's wiring) is for test code only: tests/, test/ folders and
              // *.test.ts files.
              from: { element: [{ type: 'tool', fileInternalPath: 'src/**/!(*.test).ts' }, { type: 'bench' }] },
              disallow: {
                to: [
                  { element: { type: 'service', fileInternalPath: '!index.ts' } },
                  { element: { types: ['domain', 'service-test', 'service-package'] } },
                ],
              },
              message:
                "Tools and benchmarks use a service only through its public entry: import '@pl/<service>' (export what you need from its src/index.ts); '@pl/<service>/testing' is for test code.",
            },
            {
              // Libraries sit under every service and never know one.
              from: { element: { type: 'lib' } },
              disallow: { to: { element: { types: ['service', 'domain', 'service-test', 'service-package', 'tool', 'bench', 'system-test'] } } },
              message: 'A library imports no service, tool, benchmark or test: libs sit under all of them.',
            },
            {
              from: { element: { type: 'domain' } },
              disallow: { to: { module: { origin: 'external', source: INFRASTRUCTURE_PACKAGES } } },
              message: 'domain/ imports no express, nats, kafkajs, pg, redis or pino: take what the use case needs as a parameter.',
            },
          ],
        },
      ],
    },
  },
  {
    // The crash tests' fault injection is wired by a service's main alone, when their environment arms it; the
    // code it reaches is told through its domain's CrashPoints port, which does nothing in every deployment.
    files: ['services/*/src/**/*.ts', 'tools/*/src/**/*.ts'],
    ignores: ['services/*/src/main.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@pl/config',
              importNames: ['crashPointsFromEnv'],
              message: "Only a service's main.ts wires the crash tests' hook; take the domain's CrashPoints port instead.",
            },
          ],
        },
      ],
    },
  },
  {
    // The dashboard's layout (docs/dashboard.md, "The code"): app.tsx routes to the pages; a page is built from the kit
    // (kit/: the data table, facts, forms, dialogs), its sections (sections/: parts of a page, or shared by two) and the
    // shared loaders, and imports no other page. The API is called one way: through the functions of api/<area>.ts.
    files: ['services/gateway/dashboard/src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: './services/gateway/dashboard/tsconfig.json' }, node: true },
      'boundaries/elements': [
        { type: 'dashboard-pages', pattern: 'services/gateway/dashboard/src/pages', partialMatch: false },
        { type: 'dashboard-sections', pattern: 'services/gateway/dashboard/src/sections', partialMatch: false },
        { type: 'dashboard-kit', pattern: 'services/gateway/dashboard/src/kit', partialMatch: false },
        { type: 'dashboard-loaders', pattern: 'services/gateway/dashboard/src/loaders', partialMatch: false },
        // The rest: app.tsx (the routes), session, api/, i18n/, format, mode.
        { type: 'dashboard', pattern: 'services/gateway/dashboard/src', partialMatch: false },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          checkInternals: true,
          policies: [
            {
              from: { element: { type: 'dashboard-pages' } },
              disallow: { to: { element: { type: 'dashboard-pages' } } },
              message: 'A dashboard page imports no other page: share through kit/, sections/ or loaders/.',
            },
            {
              from: {
                element: [
                  { types: ['dashboard-sections', 'dashboard-kit', 'dashboard-loaders'] },
                  { type: 'dashboard', fileInternalPath: '!app.tsx' },
                ],
              },
              disallow: { to: { element: { type: 'dashboard-pages' } } },
              message: 'Only app.tsx (the routes) imports a dashboard page.',
            },
            {
              from: { element: { types: ['dashboard-kit', 'dashboard-loaders', 'dashboard'] } },
              disallow: { to: { element: { type: 'dashboard-sections' } } },
              message: 'The kit, the loaders and the core of the dashboard know no section of a page.',
            },
            {
              from: { element: { type: 'dashboard-kit' } },
              disallow: { to: [{ element: { type: 'dashboard-loaders' } }, { element: { type: 'dashboard', fileInternalPath: 'app.tsx' } }] },
              message: 'The dashboard kit is generic: it loads no data of its own and knows no route.',
            },
          ],
        },
      ],
      // One way to call the API: the functions of api/<area>.ts. Only they hold the typed client and `call`.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/client'],
              importNames: ['client', 'call', 'present'],
              message: 'Call the API through a function of api/<area>.ts (api/links.ts, api/shops.ts...), not the client itself.',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
