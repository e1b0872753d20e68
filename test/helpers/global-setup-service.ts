import { execFile } from 'node:child_process';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import globalSetup from './global-setup';
import { makeDataDir, startLaurelProcess, stopLaurelProcess } from './laurel-process';

const root = path.resolve(__dirname, '../..');

declare global {
  /** The build of the service under way, which global-teardown.ts awaits. */
  var __LAUREL_TEST_BUILD__: Promise<void> | undefined;
}

/**
 * The global setup of the tests that run the built service (dist/, what `npm start` runs; see
 * laurel-process.ts): the shared one, and the build, once for the run. The build runs in the
 * background: jest starts its workers, and the other projects' files, without waiting for it, and
 * each file of this project waits for it first (service-build.ts). It emits without type-checking
 * (`--noCheck`; `npm run typecheck` is the check), and as a build (`-b`, as `npm start` and
 * `npm install` build): it compiles only the files changed since the last build, and nothing in a
 * fresh clone, whose `npm install` built dist/.
 */
export default async function globalSetupService(): Promise<void> {
  if (!globalThis.__LAUREL_TEST_BUILD__) {
    // A folder of its own: the run's folder is made by the shared setup, which this one does not wait for.
    const resultFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'laurel-build-')), 'result.json');
    process.env.TEST_SERVICE_BUILD_RESULT = resultFile;
    const built = new Promise<boolean>((resolve) => {
      const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
      execFile(
        process.execPath,
        [tsc, '-b', path.join(root, 'tsconfig.build.json'), '--noCheck'],
        { cwd: root },
        (error, stdout, stderr) => {
          const output = `${stdout}${stderr}` || String(error ?? '');
          publish(resultFile, { ok: !error, output });
          resolve(!error);
        },
      );
    });
    const preparedFile = path.join(path.dirname(resultFile), 'prepared-data-dir.json');
    process.env.TEST_PREPARED_DATA_DIR_RESULT = preparedFile;
    globalThis.__LAUREL_TEST_BUILD__ = built.then(async (ok) => {
      publish(preparedFile, ok ? await prepareDataDir() : { ok: false, output: 'no build' });
    });
  }
  await globalSetup();
}

/**
 * Writes a result that test files of other processes wait for (they poll for the file, then read
 * it): written beside it and renamed into place, so a reader never sees it half-written.
 */
function publish(file: string, result: object): void {
  writeFileSync(`${file}.partial`, JSON.stringify(result));
  renameSync(`${file}.partial`, file);
}

/**
 * A data folder as the first `npm start` leaves it (PostgreSQL initialised and migrated, Laurel
 * deployed on the saved chain, the keys and the development CA made), which preparedDataDir()
 * copies for the tests of later starts: a first start costs about twice a later one.
 */
async function prepareDataDir(): Promise<{ ok: boolean; dataDir?: string; output: string }> {
  const dataDir = makeDataDir();
  try {
    const started = await startLaurelProcess(dataDir, {}, { readyWithinMs: 300_000 });
    const code = await stopLaurelProcess(started, 'SIGTERM');
    return { ok: code === 0, dataDir, output: started.output() };
  } catch (error) {
    return { ok: false, dataDir, output: String(error) };
  }
}
