/**
 * A delivery whose process is killed (SIGKILL) in the middle of the webhook call, in a job or in
 * the first attempt made by the process that recorded the event, is delivered after a worker
 * starts again, with the same idempotency key; the receiver sees the event twice and can
 * deduplicate it. The processes are real Laurel processes (the built service) on the test's
 * database and chain; the test process itself runs no worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { emitWebhookEvent } from '../../src/modules/webhooks/webhooks.repository';
import { chainConfigOf } from '../helpers/chain';
import { client, issueApiKeys, type Unsigned } from '../helpers/flow';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { builtFile } from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';
import { json, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const root = path.resolve(__dirname, '../..');
const encryptionKey = randomBytes(32).toString('base64');
const LEASE_SECONDS = 1;
/** A worker whose database session is missing this long is gone (WORKER_GONE_AFTER_SECONDS). */
const GONE_AFTER_SECONDS = 1;
/**
 * The lease of the first attempt's process: longer, as that attempt must start within it (it
 * loads its delivery right after the commit) even on a busy machine.
 */
const FIRST_ATTEMPT_LEASE_SECONDS = 4;

let laurel: TestLaurel;
let receiver: WebhookReceiver;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-crash-'));
  chmodSync(dataDir, 0o755);
  [laurel, receiver] = await Promise.all([
    startTestLaurel({ chain: true, worker: false, env: { WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKey } }),
    startWebhookReceiver(),
  ]);
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([laurel?.stop(), receiver?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A Laurel process (HTTP and worker) on the test's database (and `chains`); resolves once it is
 * ready, with its URL.
 */
async function startWorkerProcess(
  chains = '[]',
  leaseSeconds = LEASE_SECONDS,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [builtFile('src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: '',
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: laurel.databaseUrl,
      LOCAL_CHAIN: 'off',
      CHAINS: chains,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKey,
      WEBHOOK_DELIVERY_LEASE_SECONDS: String(leaseSeconds),
      WORKER_GONE_AFTER_SECONDS: String(GONE_AFTER_SECONDS),
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
  return { child, url: /listening on (http:\/\/[0-9.:]+)/.exec(output)![1]! };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
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
  await kill(first.child);
  held = false;

  // Nothing was recorded for the interrupted attempt, and its job is still locked by the dead worker.
  expect(await prisma.webhookLog.count({ where: { webhookId: webhook.id } })).toBe(0);
  await waitUntil('the dead worker`s lock to outlive the lease', async () => {
    const [row] = await prisma.$queryRaw<{ stale: boolean }[]>`
      SELECT locked_at < now() - make_interval(secs => ${LEASE_SECONDS}) AS stale
      FROM graphile_worker.jobs WHERE task_identifier = 'webhook_deliveries__deliver'`;
    return row?.stale === true;
  });

  const second = await startWorkerProcess();
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
  // No worker is left to run webhook_deliveries__recover before the next test wants it to.
  await kill(second.child);
}, 120_000);

it('delivers by a job, after the lease, the first attempt of a process killed mid-call after recording the receipt', async () => {
  const chain = laurel.chain!;
  const wallet = chain.wallets[3]!;
  const prisma = laurel.services.prisma;
  let held = true;
  receiver.route('/first', (_call, response) => {
    if (!held) json(response, 200, {});
  });

  // execute-and-wait in a process of its own: it records the receipt, then makes the event's first
  // webhook attempt itself; it is killed while the receiver holds that call.
  const sender = await startWorkerProcess(
    JSON.stringify([chainConfigOf(chain)]),
    FIRST_ATTEMPT_LEASE_SECONDS,
  );
  const [apiKey] = await issueApiKeys(sender.url, [wallet]);
  const webhook = await prisma.webhook.create({
    data: { accountAddress: wallet.address, url: receiver.url('/first'), events: [], disabled: false },
  });
  const api = client(sender.url, apiKey, wallet);
  const built = await api.post('/app/new', { chain: 'local', name: 'First attempt' });
  expect(built.status).toBe(200);
  await api.execute(built.body.unsignedTransaction as Unsigned);
  const [interrupted] = await receiver.waitForCalls('/first', 1, 30_000);
  await kill(sender.child);
  held = false;

  // Nothing recorded, no job: the delivery waits for its lease to run out.
  expect(await prisma.webhookLog.count({ where: { webhookId: webhook.id } })).toBe(0);
  const [pending] = await prisma.webhookDelivery.findMany({ where: { webhookId: webhook.id } });
  expect(pending).toMatchObject({ status: 'pending', attempts: 0, firstAttemptUntil: expect.any(Date) });
  const [{ jobs }] = await prisma.$queryRaw<{ jobs: number }[]>`
    SELECT count(*)::int AS jobs FROM graphile_worker.jobs WHERE key = laurel_delivery_job_key(${pending!.id})`;
  expect(jobs).toBe(0);
  await waitUntil("the first attempt's lease to run out", () => pending!.firstAttemptUntil! < new Date());

  // A worker's start runs webhook_deliveries__recover: the delivery's job, then the call again.
  await startWorkerProcess();
  const [, redelivered] = await receiver.waitForCalls('/first', 2, 30_000);
  expect(redelivered!.headers['webhook-id']).toBe(interrupted!.headers['webhook-id']);
  expect(JSON.parse(redelivered!.body)).toEqual(JSON.parse(interrupted!.body));
  expect(JSON.parse(redelivered!.body)).toMatchObject({ event: 'transaction' });
  const delivered = await waitUntil('the attempt recorded', async () => {
    const row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: pending!.id } });
    return row.status === 'succeeded' && row;
  });
  expect(delivered).toMatchObject({ attempts: 1, firstAttemptUntil: null });
  expect(await prisma.webhookLog.findMany({ where: { webhookId: webhook.id } })).toEqual([
    expect.objectContaining({ attempt: 1, successful: true, responseCode: 200 }),
  ]);
}, 120_000);
