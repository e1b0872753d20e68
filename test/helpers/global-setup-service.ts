import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import globalSetup from './global-setup';

const root = path.resolve(__dirname, '../..');

/**
 * The global setup of the tests that run the built service (dist/, what `npm start` runs; see
 * laurel-process.ts): the shared one, and the build, once for the run before any worker starts, so
 * no test file builds while another runs the build.
 */
export default async function globalSetupService(): Promise<void> {
  await Promise.all([
    globalSetup(),
    promisify(execFile)(process.execPath, [
      path.join(root, 'node_modules/typescript/bin/tsc'),
      '-b',
      path.join(root, 'tsconfig.build.json'),
    ]),
  ]);
  process.env.TEST_SERVICE_BUILT = 'dist';
}
