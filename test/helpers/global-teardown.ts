import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  // The service's build (global-setup-service.ts) is not left writing to dist/ after the run.
  await globalThis.__LAUREL_TEST_BUILD__;
  const preparedFile = process.env.TEST_PREPARED_DATA_DIR_RESULT;
  if (preparedFile && existsSync(preparedFile)) {
    const { dataDir } = JSON.parse(readFileSync(preparedFile, 'utf8')) as { dataDir?: string };
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  if (process.env.TEST_SERVICE_BUILD_RESULT) {
    rmSync(path.dirname(process.env.TEST_SERVICE_BUILD_RESULT), { recursive: true, force: true });
  }
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (globalThis.__LAUREL_TEST_PG__) {
    await globalThis.__LAUREL_TEST_PG__.stop();
  } else if (template && process.env.TEST_DATABASE_URL) {
    // A server of TEST_DATABASE_URL outlives the run: the template goes.
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${template}"`).finally(() => admin.end());
  }
  // The cluster went with stop(); the folder keeps its port and password file, and the saved chain.
  if (globalThis.__LAUREL_TEST_FOLDER__) {
    rmSync(globalThis.__LAUREL_TEST_FOLDER__, { recursive: true, force: true });
  }
}
