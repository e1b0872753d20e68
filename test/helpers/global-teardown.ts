import { rmSync } from 'node:fs';
import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
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
