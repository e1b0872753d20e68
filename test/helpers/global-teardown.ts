import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__LAUREL_TEST_PG__?.stop();
  // The cluster went with stop(); its folder keeps the port and password file.
  if (globalThis.__LAUREL_TEST_PG_FOLDER__) {
    rmSync(globalThis.__LAUREL_TEST_PG_FOLDER__, { recursive: true, force: true });
  }
}
