import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { Client } from 'pg';
import { deployLaurel } from '../../src/chain/deploy';
import { migrate } from '../../src/db/migrator';
import { startAnvil } from '../../src/embedded/anvil';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { migrateWorkerSchema } from '../../src/jobs/worker';
import { createLogger } from '../../src/logger';
import { anvilDevPrivateKeys, anvilProvider, dumpedChainState } from './chain';
import { databaseUrl } from './database';
import { TEST_CA_CERT_FILE } from './test-ca';

declare global {
  var __LAUREL_TEST_PG__: EmbeddedPostgresHandle | undefined;
  /** The run's folder (the server's files, the saved chain), removed by global-teardown.ts. */
  var __LAUREL_TEST_FOLDER__: string | undefined;
}

/**
 * What every test file would otherwise set up again, done once per run:
 * - one PostgreSQL server (each test file creates its own databases on it, see database.ts);
 *   TEST_DATABASE_URL, when set, names an existing server to use instead;
 * - on it, a template database with Laurel's and graphile-worker's migrations applied, which
 *   createTestDatabase copies;
 * - anvil's state after Laurel's deployment, which startTestChain (chain.ts) starts from;
 * - the private keys of anvil's dev accounts (anvilDevPrivateKeys in chain.ts);
 * - the client's browser bundle, which Laurel serves to its pages (as every build makes it).
 * Each project of jest.config.js names this file (or global-setup-service.ts, which calls it): jest
 * runs it once per run, and only when a test of such a project runs.
 */
export default async function globalSetup(): Promise<void> {
  // The tests' HTTPS receivers use certificates of the test CA; Node reads NODE_EXTRA_CA_CERTS at
  // process start, so this reaches jest's workers (`npm test` also sets it for in-band runs).
  process.env.NODE_EXTRA_CA_CERTS ??= TEST_CA_CERT_FILE;
  if (globalThis.__LAUREL_TEST_FOLDER__) return;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-test-'));
  chmodSync(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must reach the folder
  globalThis.__LAUREL_TEST_FOLDER__ = folder;
  process.env.TEST_DEV_KEYS = anvilDevPrivateKeys(10).join(',');
  await Promise.all([startServerWithTemplate(folder), saveDeployedChain(folder), buildClientBundle()]);
}

async function buildClientBundle(): Promise<void> {
  const script = path.resolve(__dirname, '../../packages/client/scripts/browser-bundle.mjs');
  await promisify(execFile)(process.execPath, [script]);
}

async function startServerWithTemplate(folder: string): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) {
    // Every test file has databases of its own on this one server, a file per jest worker at a
    // time, each with one or more Laurels (each a few pools): more than PostgreSQL's default 100
    // connections. The server and its data go with the run: nothing needs to reach the disk.
    const server = await startEmbeddedPostgres({
      dataDir: folder,
      database: 'laurel_test',
      persistent: false,
      settings: ['max_connections=600', 'fsync=off', 'full_page_writes=off'],
    });
    globalThis.__LAUREL_TEST_PG__ = server;
    process.env.TEST_DATABASE_URL = server.adminUrl;
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  // A name of its own: another run may use the same TEST_DATABASE_URL at the same time.
  const template = `laurel_template_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE DATABASE "${template}"`);
    const url = databaseUrl(serverUrl, template);
    await migrate(url);
    await migrateWorkerSchema(url, createLogger('silent'));
    // A copy fails while anything is connected to its template: nothing may connect by mistake.
    await admin.query(`ALTER DATABASE "${template}" WITH ALLOW_CONNECTIONS false`);
    process.env.TEST_TEMPLATE_DATABASE = template;
  } finally {
    await admin.end();
  }
}

async function saveDeployedChain(folder: string): Promise<void> {
  const anvil = await startAnvil();
  const provider = anvilProvider(anvil.rpcUrl);
  try {
    const deployment = await deployLaurel(new Wallet(anvilDevPrivateKeys(1)[0], provider));
    // The blocks and receipts of the deployment come along: the chain is the one deployed.
    const stateFile = path.join(folder, 'chain-state.json');
    writeFileSync(stateFile, await dumpedChainState(provider));
    process.env.TEST_CHAIN_STATE = stateFile;
    process.env.TEST_CHAIN_DEPLOYMENT = JSON.stringify(deployment);
  } finally {
    provider.destroy();
    await anvil.stop();
  }
}
