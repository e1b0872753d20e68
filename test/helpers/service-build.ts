import { existsSync, readFileSync } from 'node:fs';
import { setByGlobalSetup } from './database';
import { waitUntil } from './wait';

/**
 * The setup file of the `service` project of jest.config.js: each of its files first waits for the
 * build that global-setup-service.ts started, and fails with the compiler's output if it failed.
 */
const BUILD_TIMEOUT_MS = 300_000;

beforeAll(async () => {
  const resultFile = setByGlobalSetup('TEST_SERVICE_BUILD_RESULT');
  await waitUntil('the build of the service', () => existsSync(resultFile), BUILD_TIMEOUT_MS);
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as { ok: boolean; output: string };
  if (!result.ok) throw new Error(`the build of the service failed:\n${result.output}`);
}, BUILD_TIMEOUT_MS + 10_000);
