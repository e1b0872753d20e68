/**
 * Jobs survive the loss of their database session. PostgreSQL's postmaster is SIGKILLed while the
 * job worker of a Laurel process (the built service, as `npm start` runs it) holds three jobs: the
 * receipt job of a fire-and-forget execute answered 200 just before, a badge metadata fetch and a
 * webhook delivery (both calls held by the receiver within their timeouts). Meanwhile the
 * transaction is mined and both calls are answered, so each job ends while the database is gone:
 * graphile-worker cannot write that, and its lock would stay for 4 hours. Once PostgreSQL is back, each job runs again within seconds: the transaction's receipt
 * and `transaction` event are recorded and the event delivered, the document stored, the delivery
 * made; and the status read agrees with the events.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { appInterface } from '../../src/chain/contracts';
import { migrate } from '../../src/db/migrator';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { TRACK_RECEIPT_ATTEMPT_WAIT_MS } from '../../src/modules/transactions/following/receipt-tracker';
import { newIdempotencyKey } from '../../src/modules/webhooks/webhook-events';
import { chainConfigOf, startTestChain, type TestChain } from '../helpers/chain';
import { killPostmaster } from '../helpers/database';
import { client, createApp, eventArg, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { request } from '../helpers/laurel';
import {
  makeDataDir,
  rpc,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';
import {
  json,
  startWebhookReceiver,
  type ReceivedCall,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

/** How soon after PostgreSQL is back every job must have run again. */
const RESCUE_MS = 15_000;

let dataDir: string;
let laurelDir: string;
let database: EmbeddedPostgresHandle;
let chain: TestChain;
let receiver: WebhookReceiver;
let laurel: StartedLaurel;
let apiKey: string;
let api: Client;
let appId: string;

const startDatabase = () =>
  startEmbeddedPostgres({ dataDir, database: 'laurel', persistent: false, supervise: false });

/** A query on a pool of its own (the database restarts in between). */
async function query<T extends object>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new Pool({ connectionString: database.databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  try {
    return (await pool.query<T>(text, values)).rows;
  } finally {
    await pool.end();
  }
}

/** Responses held open by the receiver until the test answers them. */
const held: Record<string, ServerResponse[]> = { hooks: [], metadata: [] };
/** The call each held response answers. */
const callOf = new Map<ServerResponse, ReceivedCall>();
let holdHooks = false;
let holdMetadata = true;
const document = { name: 'Outage', description: 'fetched across a database crash' };

beforeAll(async () => {
  dataDir = makeDataDir();
  laurelDir = makeDataDir();
  database = await startDatabase();
  await migrate(database.databaseUrl);
  [chain, receiver] = await Promise.all([startTestChain(), startWebhookReceiver()]);
  receiver.route('/hooks', (call, response) => {
    if (!holdHooks) return json(response, 200, {});
    held.hooks!.push(response);
    callOf.set(response, call);
  });
  receiver.route('/meta/outage.json', (_call, response) => {
    if (holdMetadata) held.metadata!.push(response);
    else json(response, 200, document);
  });
  laurel = await startLaurelProcess(laurelDir, {
    DATABASE_URL: database.databaseUrl,
    LOCAL_CHAIN: 'off',
    CHAINS: JSON.stringify([chainConfigOf(chain)]),
    LOG_FORMAT: 'json',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Every delivery is a job (none is the first attempt of the process that recorded its event).
    WEBHOOK_FIRST_ATTEMPTS: '0',
    BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: 'true',
    BADGE_METADATA_TIMEOUT_MS: '60000',
  });
  const wallet = chain.wallets[2]!;
  [apiKey] = await issueApiKeys(laurel.url, [wallet]);
  api = client(laurel.url, apiKey, wallet);
  await query(`INSERT INTO webhooks (account_address, url, events, disabled) VALUES ($1, $2, '{}', false)`, [
    wallet.address,
    receiver.url('/hooks'),
  ]);
}, 180_000);

afterAll(async () => {
  if (laurel) await stopLaurelProcess(laurel, 'SIGTERM');
  await Promise.all([database?.stop(), chain?.stop(), receiver?.stop()]);
  for (const folder of [dataDir, laurelDir]) rmSync(folder, { recursive: true, force: true });
});

/**
 * Answers a held call; resolves once the answer is out. A call its caller gave up on (its timeout
 * passed) can no longer be answered, and the case would not be the one under test: that fails.
 */
function answer(response: ServerResponse, body: unknown): Promise<void> {
  if (response.destroyed) {
    const call = callOf.get(response);
    return Promise.reject(
      new Error(`Laurel gave up on the held call ${call?.path ?? ''} before it was answered`),
    );
  }
  const finished = new Promise<void>((resolve) => response.once('finish', () => resolve()));
  json(response, 200, body);
  return finished;
}

const hookCalls = () => receiver.calls.filter((call) => call.path === '/hooks');
const eventOf = (call: ReceivedCall) =>
  JSON.parse(call.body) as { event: string; payload: { hash?: string } };

it('runs again, within seconds of PostgreSQL being back, every job whose worker lost its session to a postmaster SIGKILL', async () => {
  const wallet = chain.wallets[2]!;
  // An app, its `transaction` event delivered by a job as usual.
  appId = await createApp(api, 'Outage');
  await receiver.waitForCalls('/hooks', 1);

  // A badge whose metadata fetch is held (BADGE_METADATA_TIMEOUT_MS: for the whole case).
  const builtBadge = await api.post('/badge/new', {
    chain: 'local',
    app_id: appId,
    badge_name: 'Outage',
    base_uri: receiver.url('/meta/outage.json'),
  });
  expect(builtBadge.status).toBe(200);
  const badgeReceipt = await api.execute(builtBadge.body.unsignedTransaction as Unsigned);
  eventArg(badgeReceipt.logs, appInterface, 'BadgeCreated', 'badge');
  await waitUntil('the metadata fetch held', () => (held.metadata!.length === 1 ? true : undefined));

  // A fire-and-forget execute, answered 200, not mined yet; its receipt job waits for it.
  await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
  const built = await api.post('/app/new', { chain: 'local', name: 'Mined during the outage' });
  expect(built.status).toBe(200);
  const executed = await api.post('/transactions/execute', {
    chain: 'local',
    signed_transaction: await wallet.signTransaction(built.body.unsignedTransaction as Unsigned),
  });
  expect(executed).toMatchObject({ status: 200, body: { status: 'success' } });
  const hash = executed.body.transactionHash as string;
  // Killed just as an attempt of the receipt job starts: the transaction is mined within it.
  await waitUntil('an attempt of the receipt job starting', async () => {
    const [job] = await query<{ starting: boolean }>(
      `SELECT now() - locked_at < interval '300 milliseconds' AS starting FROM graphile_worker.jobs
        WHERE task_identifier = 'transactions__track_receipt' AND key LIKE '%' || $1`,
      [hash],
    );
    return job?.starting === true;
  });
  // A delivery held from now until the kill: a webhook call times out after 5 s (the interface's),
  // less than catching that attempt can take on a busy machine. Its event is emitted as recording a
  // receipt emits one (the same SQL function), as no receipt can be recorded now without mining
  // the transaction above.
  holdHooks = true;
  await query(`SELECT laurel_emit_webhook_event($1, 'transaction', $2, $3::jsonb, NULL)`, [
    wallet.address,
    newIdempotencyKey(),
    JSON.stringify(badgeReceipt),
  ]);
  const heldDelivery = callOf.get(await waitUntil('the delivery held', () => held.hooks![0]))!;

  const killedAt = Date.now();
  await killPostmaster(database.pid);
  await rpc(chain.rpcUrl, 'evm_mine');
  await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
  expect(await chain.provider.getTransactionReceipt(hash)).toMatchObject({ status: 1 });
  holdHooks = false;
  holdMetadata = false;
  await Promise.all([
    ...held.hooks!.splice(0).map((response) => answer(response, {})),
    ...held.metadata!.splice(0).map((response) => answer(response, document)),
  ]);
  // The receipt job's attempt ends within its wait; each job then fails to write its outcome.
  await waitUntil('the attempt of the receipt job over', () =>
    Date.now() > killedAt + TRACK_RECEIPT_ATTEMPT_WAIT_MS + 500 ? true : undefined,
  );
  const outage = await request(laurel.url, 'GET', '/v1/keys', { apiKey });
  expect(outage.status).toBe(503);

  database = await startDatabase();
  const deadline = Date.now() + RESCUE_MS;
  const withinRescue = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
    waitUntil(
      `${what} within ${RESCUE_MS} ms of PostgreSQL being back`,
      probe,
      Math.max(0, deadline - Date.now()),
    );

  // The receipt job: the receipt recorded, the `transaction` event recorded and delivered.
  await withinRescue('the receipt recorded', async () => {
    const [row] = await query<{ status: string }>('SELECT status FROM transactions WHERE hash = $1', [hash]);
    return row?.status === 'success';
  });
  await withinRescue('the `transaction` event delivered', async () =>
    hookCalls().some((call) => eventOf(call).payload.hash === hash),
  );
  // The delivery job: the held delivery made again, with the same idempotency key, and recorded.
  await withinRescue(
    'the held delivery made again',
    async () =>
      hookCalls().filter((call) => call.headers['webhook-id'] === heldDelivery.headers['webhook-id'])
        .length >= 2,
  );
  await withinRescue('the delivery recorded', async () => {
    const rows = await query<{ status: string }>(
      `SELECT d.status FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE e.idempotency_key = $1`,
      [heldDelivery.headers['webhook-id']],
    );
    return rows[0]?.status === 'succeeded';
  });
  // The metadata job: fetched again and stored.
  await withinRescue('the badge metadata stored', async () => {
    const [row] = await query<{ document: unknown }>('SELECT document FROM badge_metadata WHERE uri = $1', [
      receiver.url('/meta/outage.json'),
    ]);
    return row?.document !== null && row?.document !== undefined;
  });
  expect(
    (
      await query<{ document: unknown }>('SELECT document FROM badge_metadata WHERE uri = $1', [
        receiver.url('/meta/outage.json'),
      ])
    )[0]!.document,
  ).toEqual(document);

  // The status read and the events agree: mined, and its event recorded once.
  const status = await api.get(`/transactions/${hash}?chain=local`);
  expect(status).toMatchObject({ status: 200, body: { status: 'success', transactionHash: hash } });
  const events = await query<{ id: string }>(
    `SELECT id FROM webhook_events WHERE event = 'transaction' AND payload->>'hash' = $1`,
    [hash],
  );
  expect(events).toHaveLength(1);
  expect(laurel.child.exitCode).toBeNull();
}, 180_000);

it('never starts a job again while its worker still runs it across the loss of its session', async () => {
  // A metadata fetch held across the outage (its job still runs), and a delivery answered while
  // PostgreSQL is gone (its job then cannot record it).
  const uri = receiver.url('/meta/long.json');
  let longResponse: ServerResponse | undefined;
  receiver.route('/meta/long.json', (_call, response) => {
    if (longResponse) json(response, 200, document);
    else longResponse = response;
  });
  holdHooks = true;
  const built = await api.post('/badge/new', {
    chain: 'local',
    app_id: appId,
    badge_name: 'Long',
    base_uri: uri,
  });
  expect(built.status).toBe(200);
  const { hash } = (await api.execute(built.body.unsignedTransaction as Unsigned)) as unknown as {
    hash: string;
  };
  const abandonedResponse = await waitUntil('the fetch and the delivery held', () =>
    longResponse
      ? held.hooks!.find((response) => eventOf(callOf.get(response)!).payload.hash === hash)
      : undefined,
  );
  const abandoned = callOf.get(abandonedResponse)!;
  holdHooks = false;
  for (const response of held.hooks!.splice(0)) if (response !== abandonedResponse) json(response, 200, {});

  await killPostmaster(database.pid);
  await answer(abandonedResponse, {});
  expect((await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status).toBe(503);
  database = await startDatabase();

  const fetches = () => receiver.calls.filter((call) => call.path === '/meta/long.json').length;
  // The job whose outcome was lost runs again (the worker looked at its locks since it is back) ...
  await waitUntil(
    'the abandoned delivery made again',
    () =>
      hookCalls().filter((call) => call.headers['webhook-id'] === abandoned.headers['webhook-id']).length ===
      2
        ? true
        : undefined,
    RESCUE_MS,
  );
  // ... while the job it still runs was not started again, and records its outcome itself.
  expect(fetches()).toBe(1);
  json(longResponse!, 200, document);
  await waitUntil('the document stored', async () => {
    const [row] = await query<{ document: unknown }>('SELECT document FROM badge_metadata WHERE uri = $1', [
      uri,
    ]);
    return row?.document ? row.document : undefined;
  });
  expect(fetches()).toBe(1);
}, 120_000);
