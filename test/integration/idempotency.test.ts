import { randomUUID } from 'node:crypto';
import { Contract, Wallet, type Signer } from 'ethers';
import { appFactoryInterface } from '../../src/chain/contracts';
import { jobs } from '../../src/jobs/jobs';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, mined, startTestChain, type TestChain } from '../helpers/chain';
import { eventArg, type Unsigned } from '../helpers/flow';
import { startHostileRpc, type HostileRpc } from '../helpers/hostile-rpc';
import { runJobOnce } from '../helpers/jobs';
import { request, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * Idempotency-Key on anvil and PostgreSQL, through REST and GraphQL: a retried build gets the same
 * unsigned transaction and reserves one nonce; another body under the key is refused; concurrent
 * requests under one key do the work once; the answer is served by a second Laurel on the same
 * database; a retried execute does not broadcast again (the node's calls are counted by a proxy).
 */
let chain: TestChain;
let rpc: HostileRpc;
let laurel: TestLaurel;
let second: TestLaurel | undefined;
let owner: Wallet;
let ownerAddress: string;
let apiKey: string;
let appId: string;

const receiver = Wallet.createRandom().address;

function post(path: string, body: unknown, key?: string, url = laurel.url): Promise<HttpResult> {
  return request(url, 'POST', `/v1${path}`, {
    apiKey,
    body,
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });
}

/** A GraphQL request with the key; amounts go as variables (`$a`, `$b`: Decimal strings). */
function graphqlWithKey<T>(query: string, key: string, variables: Record<string, string> = {}) {
  return request<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>(
    laurel.url,
    'POST',
    '/graphql',
    { apiKey, body: { query, variables }, headers: { 'Idempotency-Key': key } },
  );
}

/** The chain behind the counting proxy: every call Laurel makes to the node goes through it. */
const proxiedChain = () => ({ CHAINS: JSON.stringify([{ ...chainConfigOf(chain), rpcUrl: rpc.url }]) });

const xpBody = (amount: number) => ({ chain: 'local', app_id: appId, action_id: 'retry', receiver, amount });

/** The owner's reserved nonces not sent yet, in order. */
async function reservedNonces(): Promise<number[]> {
  const rows = await laurel.services.prisma.$queryRaw<{ nonce: bigint }[]>`
    SELECT nonce FROM nonce_reservations
     WHERE lower(sender) = lower(${ownerAddress}) AND transaction_hash IS NULL ORDER BY nonce`;
  return rows.map((row) => Number(row.nonce));
}

/** Frees the owner's unsent builds, so each test counts its own reservations from none. */
async function releaseReservations(): Promise<void> {
  const released = await request(laurel.url, 'DELETE', '/v1/transactions/reservations?chain=local', {
    apiKey,
  });
  expect(released.status).toBe(200);
  expect(await reservedNonces()).toEqual([]);
}

async function signed(unsigned: Unsigned, signer: Signer = owner): Promise<string> {
  return signer.signTransaction(unsigned);
}

beforeAll(async () => {
  chain = await startTestChain();
  rpc = await startHostileRpc(chain.rpcUrl);
  laurel = await startTestLaurel({ chain, worker: false, env: proxiedChain() });
  owner = chain.wallets[4];
  ownerAddress = await owner.getAddress();
  apiKey = await issueApiKey(laurel.url, owner);
  const factory = new Contract(chain.factory, appFactoryInterface, owner);
  appId = eventArg(
    (await mined(factory.createApp('Retries'))).logs,
    appFactoryInterface,
    'AppCreated',
    'app',
  );
});
afterAll(async () => {
  await second?.stop();
  await laurel?.stop();
  await rpc?.close();
  await chain?.stop();
});
beforeEach(releaseReservations);

describe('REST builds', () => {
  it('a retried build with the same key answers the same unsigned transaction and reserves one nonce', async () => {
    const key = randomUUID();
    const first = await post('/reward/XP', xpBody(1), key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retried = await post('/reward/XP', xpBody(1), key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    // Key order too: the answer is given again as it was written.
    expect(JSON.stringify(retried.body)).toBe(JSON.stringify(first.body));
    const nonce = (first.body.unsignedTransaction as Unsigned).nonce as number;
    expect(await reservedNonces()).toEqual([nonce]);

    // Without a key the same body is another request: a second nonce.
    const unkeyed = await post('/reward/XP', xpBody(1));
    expect((unkeyed.body.unsignedTransaction as Unsigned).nonce).not.toBe(nonce);
    expect(await reservedNonces()).toHaveLength(2);

    // The record: the account and the operation are the key's scope.
    const records = await laurel.services.prisma.idempotencyRecord.findMany({ where: { key } });
    expect(records).toEqual([
      expect.objectContaining({ accountAddress: ownerAddress, operation: 'rewardXP', status: 'completed' }),
    ]);
    const ttl = records[0].expiresAt.getTime() - records[0].createdAt.getTime();
    expect(ttl).toBe(24 * 3600 * 1000);
  });

  it('the same key with another body is refused (422 in the path’s shape) and reserves nothing', async () => {
    const key = randomUUID();
    const first = await post('/reward/XP', xpBody(1), key);
    expect(first.status).toBe(200);
    const other = await post('/reward/XP', xpBody(2), key);
    expect(other).toMatchObject({
      status: 422,
      body: {
        status: 'failed',
        error: 'Idempotency-Key was already used with another request on this operation',
      },
    });
    expect(await reservedNonces()).toEqual([(first.body.unsignedTransaction as Unsigned).nonce]);
    // The first request's answer is still the key's.
    expect((await post('/reward/XP', xpBody(1), key)).body).toEqual(first.body);
    // The key is scoped to its operation: another operation may use it.
    const onAnother = await post('/webhook', { url: 'https://127.0.0.1:9/scoped' }, key);
    expect(onAnother.status).toBe(201);
  });

  it('a failed request keeps nothing: the key is free for the corrected request', async () => {
    const key = randomUUID();
    const unknownApp = Wallet.createRandom().address;
    const failed = await post('/reward/XP', { ...xpBody(1), app_id: unknownApp }, key);
    expect(failed.status).toBe(404);
    expect(await laurel.services.prisma.idempotencyRecord.count({ where: { key } })).toBe(0);
    const corrected = await post('/reward/XP', xpBody(1), key);
    expect(corrected.status).toBe(200);
    expect(await reservedNonces()).toHaveLength(1);
  });

  it('refuses a malformed key with 400 in the path’s validation shape, before any work', async () => {
    for (const key of ['', 'with space', 'x'.repeat(256), 'quote"inside', 'é']) {
      const refused = await post('/reward/XP', xpBody(1), key);
      expect(refused).toMatchObject({
        status: 400,
        body: { success: false, error: { name: 'ZodError', issues: [{ path: ['Idempotency-Key'] }] } },
      });
    }
    expect(await reservedNonces()).toEqual([]);
    // The draft's quoted form (a structured-field string) names the same key as the bare one.
    const key = randomUUID();
    const quoted = await post('/reward/XP', xpBody(1), `"${key}"`);
    const bare = await post('/reward/XP', xpBody(1), key);
    expect(bare.headers.get('idempotent-replayed')).toBe('true');
    expect(bare.body).toEqual(quoted.body);
    expect(await reservedNonces()).toHaveLength(1);
  });

  it('concurrent requests with one key do the work once: the others get the answer or 409 with Retry-After', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('/reward/XP', xpBody(3), key)));
    const done = answers.filter((answer) => answer.status === 200);
    const waiting = answers.filter((answer) => answer.status !== 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const answer of done) expect(answer.body).toEqual(done[0].body);
    for (const answer of waiting) {
      expect(answer).toMatchObject({
        status: 409,
        body: {
          status: 'failed',
          error: 'A request with this Idempotency-Key is still running: retry later',
        },
      });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(await reservedNonces()).toEqual([(done[0].body.unsignedTransaction as Unsigned).nonce]);
  });

  it('the answer is served by a second Laurel on the same database', async () => {
    const key = randomUUID();
    const first = await post('/reward/XP', xpBody(4), key);
    expect(first.status).toBe(200);
    second = await startTestLaurel({
      chain,
      worker: false,
      env: proxiedChain(),
      database: { url: laurel.databaseUrl, drop: async () => undefined },
    });
    const elsewhere = await post('/reward/XP', xpBody(4), key, second.url);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBe('true');
    expect(elsewhere.body).toEqual(first.body);
    expect(await reservedNonces()).toHaveLength(1);
    await second.stop();
    second = undefined;
  });
});

describe('records', () => {
  it('a key held by a run that died is free after IDEMPOTENCY_LOCK_SECONDS; expired records are pruned', async () => {
    const key = randomUUID();
    const first = await post('/reward/XP', xpBody(7), key);
    // As if its process had died mid-run: still in progress, its lock over.
    await laurel.services.prisma.idempotencyRecord.updateMany({
      where: { key },
      data: { status: 'in_progress', answer: undefined, lockedUntil: new Date(Date.now() - 1000) },
    });
    const taken = await post('/reward/XP', xpBody(7), key);
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(taken.body).not.toEqual(first.body);

    await laurel.services.prisma.idempotencyRecord.updateMany({
      where: { key },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await runJobOnce(laurel, jobs.prune, {});
    expect(await laurel.services.prisma.idempotencyRecord.count({ where: { key } })).toBe(0);
  });
});

describe('REST execute', () => {
  it('a retried execute-and-wait does not broadcast again; a retry while it waits is 409', async () => {
    const built = await post('/reward/XP', xpBody(5));
    const signedTransaction = await signed(built.body.unsignedTransaction as Unsigned);
    const body = { chain: 'local', signed_transaction: signedTransaction };
    const key = randomUUID();
    const sentBefore = rpc.calls('eth_sendRawTransaction');

    await chain.provider.send('evm_setAutomine', [false]);
    let waited: Promise<HttpResult>;
    try {
      waited = post('/transactions/execute-and-wait', body, key);
      await waitUntil('the broadcast', () => rpc.calls('eth_sendRawTransaction') > sentBefore);
      const meanwhile = await post('/transactions/execute-and-wait', body, key);
      expect(meanwhile).toMatchObject({
        status: 409,
        body: {
          status: 'failed',
          error: 'A request with this Idempotency-Key is still running: retry later',
        },
      });
      expect(meanwhile.headers.get('retry-after')).toBe('1');
      await chain.provider.send('evm_mine', []);
    } finally {
      await chain.provider.send('evm_setAutomine', [true]);
    }
    const first = await waited;
    expect(first).toMatchObject({ status: 200, body: { status: 'success' } });

    const retried = await post('/transactions/execute-and-wait', body, key);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    expect(rpc.calls('eth_sendRawTransaction')).toBe(sentBefore + 1);
  });

  it('a retried execute answers the first broadcast’s answer without sending again', async () => {
    const built = await post('/reward/XP', xpBody(6));
    const body = {
      chain: 'local',
      signed_transaction: await signed(built.body.unsignedTransaction as Unsigned),
    };
    const key = randomUUID();
    const sentBefore = rpc.calls('eth_sendRawTransaction');
    const first = await post('/transactions/execute', body, key);
    expect(first).toMatchObject({ status: 200, body: { status: 'success' } });
    const retried = await post('/transactions/execute', body, key);
    expect(retried.body).toEqual(first.body);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(rpc.calls('eth_sendRawTransaction')).toBe(sentBefore + 1);
  });
});

describe('REST webhooks', () => {
  it('a retried webhook creation creates one webhook', async () => {
    const key = randomUUID();
    const body = { url: 'https://127.0.0.1:9/idempotent' };
    const first = await post('/webhook', body, key);
    expect(first.status).toBe(201);
    const retried = await post('/webhook', body, key);
    expect(retried).toMatchObject({ status: 201, body: first.body });
    const listed = await request(laurel.url, 'GET', '/v1/webhooks', { apiKey });
    const urls = (listed.body.webhooks as { url: string }[]).map((webhook) => webhook.url);
    expect(urls.filter((url) => url === body.url)).toHaveLength(1);
  });
});

describe('GraphQL', () => {
  const rewardXP = (variable: string, alias = 'rewardXP') => `
    ${alias}: rewardXP(chain: "local", app_id: "${appId}", action_id: "retry", receiver: "${receiver}", amount: $${variable}) {
      unsignedTransaction { to data maxPriorityFeePerGas maxFeePerGas gasLimit gas nonce chainId type }
    }`;
  // Amounts as variables: a Decimal literal is refused on a document's second run (compiled).
  const one = () => `mutation ($a: Decimal!) { ${rewardXP('a')} }`;

  it('a retried rewardXP with the same key answers the same unsigned transaction and reserves one nonce', async () => {
    const key = randomUUID();
    const first = await graphqlWithKey<{ rewardXP: { unsignedTransaction: Unsigned } }>(one(), key, {
      a: '1',
    });
    expect(first.body.errors).toBeUndefined();
    const retried = await graphqlWithKey(one(), key, { a: '1' });
    expect(retried.body).toEqual(first.body);
    expect(await reservedNonces()).toEqual([first.body.data!.rewardXP.unsignedTransaction.nonce]);

    const other = await graphqlWithKey(one(), key, { a: '2' });
    expect(other.body.data).toBeNull();
    expect(other.body.errors).toEqual([
      expect.objectContaining({
        message: 'Idempotency-Key was already used with another request on this operation',
        extensions: expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED' }),
      }),
    ]);
    expect(await reservedNonces()).toHaveLength(1);

    // The record is the GraphQL field's; REST's operation under the same key is another request.
    const records = await laurel.services.prisma.idempotencyRecord.findMany({ where: { key } });
    expect(records.map((record) => record.operation)).toEqual(['graphql rewardXP']);
    const rest = await post('/reward/XP', xpBody(1), key);
    expect(rest.status).toBe(200);
    expect(rest.headers.get('idempotent-replayed')).toBeNull();
    expect(await reservedNonces()).toHaveLength(2);
  });

  it('concurrent rewardXP requests with one key do the work once', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        graphqlWithKey<{ rewardXP: { unsignedTransaction: Unsigned } }>(one(), key, { a: '3' }),
      ),
    );
    const done = answers.filter((answer) => !answer.body.errors);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const answer of done) expect(answer.body).toEqual(done[0].body);
    for (const answer of answers.filter((candidate) => candidate.body.errors)) {
      expect(answer.body.errors).toEqual([
        expect.objectContaining({
          extensions: expect.objectContaining({ code: 'IDEMPOTENCY_KEY_IN_PROGRESS' }),
        }),
      ]);
    }
    expect(await reservedNonces()).toEqual([done[0].body.data!.rewardXP.unsignedTransaction.nonce]);
  });

  it('several mutation fields under one key: each field (by its alias) is its own request, run once', async () => {
    const key = randomUUID();
    const document = `mutation ($a: Decimal!, $b: Decimal!) { ${rewardXP('a', 'a')} ${rewardXP('b', 'b')} }`;
    const amounts = { a: '1', b: '2' };
    const first = await graphqlWithKey<Record<string, { unsignedTransaction: Unsigned }>>(
      document,
      key,
      amounts,
    );
    expect(first.body.errors).toBeUndefined();
    const nonces = [first.body.data!.a, first.body.data!.b].map(
      (field) => field.unsignedTransaction.nonce as number,
    );
    expect(nonces[0]).not.toBe(nonces[1]);
    expect(await reservedNonces()).toEqual([...nonces].sort((x, y) => x - y));
    // The whole document sent again: the same answer, no other nonce.
    const retried = await graphqlWithKey(document, key, amounts);
    expect(retried.body).toEqual(first.body);
    expect(await reservedNonces()).toEqual([...nonces].sort((x, y) => x - y));
    // A field under the key with other arguments is refused, the other field answered again.
    const changed = await graphqlWithKey<Record<string, unknown>>(document, key, { a: '1', b: '3' });
    expect(changed.body.errors).toEqual([
      expect.objectContaining({
        path: ['b'],
        extensions: expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED' }),
      }),
    ]);
    expect(await reservedNonces()).toHaveLength(2);
  });
});
