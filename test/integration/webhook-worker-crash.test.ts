/**
 * A delivery job whose worker process is killed (SIGKILL) in the middle of the webhook call is
 * delivered after a worker starts again, with the same idempotency key; the receiver sees the
 * event twice and can deduplicate it. The workers are real Laurel processes (the built service)
 * on the test's database; the test process itself runs no worker.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { emitWebhookEvent } from '../../src/modules/webhooks/webhooks.repository';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import { json, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const root = path.resolve(__dirname, '../..');
// A build of its own (not dist/, which another test file may be building at the same time).
const buildDir = path.join(root, 'node_modules/.cache', `laurel-worker-crash-${process.pid}`);
const encryptionKey = randomBytes(32).toString('base64');
const LEASE_SECONDS = 1;

let laurel: TestLaurel;
let receiver: WebhookReceiver;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, [
    path.join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    path.join(root, 'tsconfig.build.json'),
    '--outDir',
    buildDir,
    // Its incremental state beside it: in dist/, it would make `tsc -b` take dist/ for up to date.
    '--tsBuildInfoFile',
    path.join(buildDir, '.tsbuildinfo'),
  ]);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-crash-'));
  chmodSync(dataDir, 0o755);
  [laurel, receiver] = await Promise.all([
    startTestLaurel({ worker: false, env: { WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKey } }),
    startWebhookReceiver(),
  ]);
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([laurel?.stop(), receiver?.stop()]);
  rmSync(buildDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** A Laurel process (HTTP and worker) on the test's database; resolves once it is ready. */
async function startWorkerProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(buildDir, 'src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: '',
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: laurel.databaseUrl,
      LOCAL_CHAIN: 'off',
      CHAINS: '[]',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKey,
      WEBHOOK_DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await waitUntil(
    `a worker process ready:\n${output}`,
    () => {
      if (child.exitCode !== null) throw new Error(`the worker process exited:\n${output}`);
      return /ready in/.test(output);
    },
    60_000,
  );
  return child;
}

it('delivers after restart, with the same idempotency key, a job whose worker was killed mid-call', async () => {
  const { address } = Wallet.createRandom();
  const prisma = laurel.services.prisma;
  await prisma.account.create({ data: { address } });
  const webhook = await prisma.webhook.create({
    data: { accountAddress: address, url: receiver.url('/crash'), events: [], disabled: false },
  });
  // The first call is held open: its worker is killed while waiting for the answer.
  let held = true;
  receiver.route('/crash', (_call, response) => {
    if (!held) json(response, 200, {});
  });

  const first = await startWorkerProcess();
  await prisma.$transaction((db) =>
    emitWebhookEvent(db, { accountAddress: address, event: 'transaction', payload: { n: 1 } }),
  );
  const [interrupted] = await receiver.waitForCalls('/crash', 1, 30_000);
  const exited = new Promise((resolve) => first.once('exit', resolve));
  first.kill('SIGKILL');
  await exited;
  held = false;

  // Nothing was recorded for the interrupted attempt, and its job is still locked by the dead worker.
  expect(await prisma.webhookLog.count({ where: { webhookId: webhook.id } })).toBe(0);
  await waitUntil('the dead worker`s lock to outlive the lease', async () => {
    const [row] = await prisma.$queryRaw<{ stale: boolean }[]>`
      SELECT locked_at < now() - make_interval(secs => ${LEASE_SECONDS}) AS stale
      FROM graphile_worker.jobs WHERE task_identifier = 'webhook_deliveries__deliver'`;
    return row?.stale === true;
  });

  await startWorkerProcess();
  const [, redelivered] = await receiver.waitForCalls('/crash', 2, 30_000);
  expect(redelivered!.headers['webhook-id']).toBe(interrupted!.headers['webhook-id']);
  expect(JSON.parse(redelivered!.body)).toEqual(JSON.parse(interrupted!.body));
  const logs = await waitUntil('the attempt logged', async () => {
    const rows = await prisma.webhookLog.findMany({ where: { webhookId: webhook.id } });
    return rows.length > 0 && rows;
  });
  expect(logs).toEqual([expect.objectContaining({ attempt: 1, successful: true, responseCode: 200 })]);
  const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: webhook.id } });
  expect(delivery.status).toBe('succeeded');
}, 120_000);
