/**
 * Three projects, by what their files need; jest runs a project's global setup only when one of
 * its files runs (docs/development.md#tests):
 * - unit: plain logic, nothing started;
 * - integration: the run's PostgreSQL with its migrated template, and its saved anvil chain
 *   (test/helpers/global-setup.ts);
 * - service: the same, and the service built once to dist/ (test/helpers/global-setup-service.ts),
 *   for the files that run it as `npm start` does; each waits for that build (service-build.ts).
 */
const SERVICE = [
  'test/client/cli-key.test.ts',
  'test/client/install.test.ts',
  'test/contracts/anvil.test.ts',
  'test/integration/database-outage.test.ts',
  'test/integration/demo.test.ts',
  'test/integration/deploys.test.ts',
  'test/integration/examples.test.ts',
  'test/integration/faults.test.ts',
  'test/integration/job-session-loss.test.ts',
  'test/integration/local-chain-restart.test.ts',
  'test/integration/scale-out.test.ts',
  'test/integration/start-stop.test.ts',
  'test/integration/tracing.test.ts',
  'test/integration/webhook-worker-crash.test.ts',
];
/** Files under test/unit that need the database. */
const UNIT_WITH_DATABASE = ['test/unit/nonces.test.ts'];
/**
 * Small files that run together, a group a jest file (test/groups/, test/helpers/group.ts): jest
 * loads src and its libraries afresh for every file, which costs a small file more than its tests.
 * A run that names files (`npm test -- test/integration/openapi.test.ts`) runs them alone.
 */
const GROUPS = require('./test/groups.json');
const namesFiles = process.argv.slice(2).some((arg) => arg.endsWith('.test.ts'));
const GROUPED = namesFiles ? [] : Object.values(GROUPS).flat();

const paths = (files) => files.map((file) => `<rootDir>/${file}`);

/** @type {import('jest').Config} */
const common = {
  testEnvironment: 'node',
  // swc compiles a file without type-checking, as tsconfig's isolatedModules allows, and keeps the
  // decorator metadata type-graphql reads (an esbuild-based transform drops it); the typecheck is
  // `npm run typecheck`'s.
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
          keepClassNames: true,
        },
        // import() stays a real dynamic import, as tsc keeps it for the ES-only packages.
        module: { type: 'commonjs', ignoreDynamic: true },
        sourceMaps: 'inline',
      },
    ],
  },
  // The generated Prisma client imports its own files with a .js suffix.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  setupFiles: ['reflect-metadata'],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60000,
  // The files mostly wait on PostgreSQL, anvil, child processes and sockets: with fewer workers
  // (docs/development.md#workers), the cores idle meanwhile.
  maxWorkers: 6,
  // A worker keeps every module of every file it ran (docs/development.md#tests), and its garbage
  // collection slows as that heap grows: past this, jest replaces it after its current file.
  workerIdleMemoryLimit: '600MB',
  testSequencer: '<rootDir>/test/helpers/sequencer.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      testPathIgnorePatterns: paths(UNIT_WITH_DATABASE),
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/test/integration/**/*.test.ts',
        '<rootDir>/test/client/**/*.test.ts',
        '<rootDir>/test/contracts/**/*.test.ts',
        '<rootDir>/test/groups/*.test.ts',
        ...paths(UNIT_WITH_DATABASE),
      ],
      testPathIgnorePatterns: paths([...SERVICE, ...GROUPED]),
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'service',
      testMatch: paths(SERVICE),
      globalSetup: '<rootDir>/test/helpers/global-setup-service.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/helpers/service-build.ts'],
    },
  ],
};
