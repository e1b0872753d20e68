import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { TEST_CA_CERT_FILE } from './test-ca';

declare global {
  var __LAUREL_TEST_PG__: EmbeddedPostgresHandle | undefined;
  /** The server's folder, removed by global-teardown.ts. */
  var __LAUREL_TEST_PG_FOLDER__: string | undefined;
}

/**
 * One PostgreSQL server for the whole run (each test file creates its own database on it, see
 * database.ts). TEST_DATABASE_URL, when set, names an existing server to use instead.
 */
export default async function globalSetup(): Promise<void> {
  // The tests' HTTPS receivers use certificates of the test CA; Node reads NODE_EXTRA_CA_CERTS at
  // process start, so this reaches jest's workers (`npm test` also sets it for in-band runs).
  process.env.NODE_EXTRA_CA_CERTS ??= TEST_CA_CERT_FILE;
  if (process.env.TEST_DATABASE_URL) return;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-test-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach the folder
  globalThis.__LAUREL_TEST_PG_FOLDER__ = dataDir;
  // Every test file has databases of its own on this one server, two files at a time, each with
  // one or more Laurels (each a few pools): more than PostgreSQL's default 100 connections.
  const server = await startEmbeddedPostgres({
    dataDir,
    database: 'laurel_test',
    persistent: false,
    settings: ['max_connections=400'],
  });
  globalThis.__LAUREL_TEST_PG__ = server;
  process.env.TEST_DATABASE_URL = server.adminUrl;
}
