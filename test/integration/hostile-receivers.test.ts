/**
 * Webhook receivers Laurel does not control, started by the test as real HTTPS servers of the test
 * CA: answers with NUL bytes, invalid UTF-8, huge or endless bodies, endless redirects. Through the
 * public interface (REST, GraphQL, signed transactions on anvil): the `test` call never answers
 * 500 and its attempt is logged; one account's hostile receiver fails nothing of another
 * account's delivery (each called once, each attempt logged); deactivation still applies; and the
 * bounds of issue 43 on webhooks: per account, log pages, retries only to a verified url, the
 * outbound connections, and the retention of logs.
 */
import { Wallet, type HDNodeWallet } from 'ethers';
import { jobs } from '../../src/jobs/jobs';
import { WebhookDeliveriesRepository } from '../../src/modules/webhooks/webhook-deliveries.repository';
import {
  WEBHOOK_RESPONSE_BODY_LIMIT,
  WebhookHttpClient,
  type WebhookCallResult,
} from '../../src/modules/webhooks/webhook-http-client';
import { webhookEventEmission } from '../../src/modules/webhooks/webhooks.repository';
import { WEBHOOK_TESTS_PER_ACCOUNT } from '../../src/modules/webhooks/webhooks.service';
import { issueApiKey } from '../helpers/auth';
import { runJobOnce } from '../helpers/jobs';
import { graphql, request, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import {
  answerBytes,
  answerChallenge,
  answerHuge,
  inTurn,
  json,
  redirectTo,
  startWebhookReceiver,
  trickle,
  type ReceivedCall,
  type ReceiverHandler,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

let laurel: TestLaurel;
/** Answers as receivers should. */
let friendly: WebhookReceiver;
/** Answers as no receiver should. */
let hostile: WebhookReceiver;

const PER_ACCOUNT = 3;

beforeAll(async () => {
  [laurel, friendly, hostile] = await Promise.all([
    startTestLaurel({
      chain: true,
      // Retries 20 ms apart: a failing receiver meets its 5 attempts within the test.
      env: { WEBHOOKS_PER_ACCOUNT: String(PER_ACCOUNT), WEBHOOK_RETRY_BASE_MS: '20' },
    }),
    startWebhookReceiver(),
    startWebhookReceiver(),
  ]);
});

afterAll(async () => {
  await Promise.all([laurel?.stop(), friendly?.stop(), hostile?.stop()]);
});

interface Account {
  address: string;
  call(method: string, path: string, body?: unknown): Promise<HttpResult>;
}

async function newAccount(wallet: Wallet | HDNodeWallet = Wallet.createRandom()): Promise<Account> {
  const apiKey = await issueApiKey(laurel.url, wallet);
  return {
    address: wallet.address,
    call: (method, path, body) => request(laurel.url, method, `/v1${path}`, { apiKey, body }),
  };
}

let paths = 0;
const newPath = () => `/hostile-${++paths}`;

/** A webhook of the account at `receiver`'s fresh path answered by `handler`; its id and path. */
async function webhookAt(account: Account, receiver: WebhookReceiver, handler: ReceiverHandler) {
  const path = newPath();
  receiver.route(path, handler);
  const created = await account.call('POST', '/webhook', { url: receiver.url(path) });
  expect(created.status).toBe(201);
  return { id: (created.body.webhook as { id: number }).id, path };
}

const storedLogs = (webhookId: number) =>
  laurel.services.prisma.webhookLog.findMany({ where: { webhookId }, orderBy: { id: 'asc' } });

const callsTo = (receiver: WebhookReceiver, path: string): ReceivedCall[] =>
  receiver.calls.filter((call) => call.path === path);

/** JSON whose one string holds a NUL byte. */
const NUL_BODY = Buffer.from('{"challenge":"\u0000"}', 'utf8');
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d, 0xed, 0xa0, 0x80]);

describe('POST /webhook/:id/test against a hostile receiver', () => {
  const cases: [string, (path: string) => ReceiverHandler, RegExp][] = [
    ['NUL bytes in its JSON body', () => answerBytes(200, NUL_BODY), /the body must be exactly/],
    ['a body that is not UTF-8', () => answerBytes(200, INVALID_UTF8), /not JSON/],
    [
      'NUL bytes and invalid UTF-8 in an error answer',
      () => answerBytes(500, Buffer.concat([NUL_BODY, INVALID_UTF8])),
      /HTTP 500/,
    ],
    ['a body of 50 MB', () => answerHuge(50 * 1024 * 1024), /content-type is text\/plain/],
    ['a body that never ends', () => trickle(100), /^timeout/],
    ['redirects to itself without end', (path) => redirectTo(path), /^too many redirects/],
  ];

  it.each(cases)(
    'answers 422 with the reason and logs the attempt: %s',
    async (_case, handler, reason) => {
      const account = await newAccount();
      const path = newPath();
      hostile.route(path, handler(path));
      const { id } = (await account.call('POST', '/webhook', { url: hostile.url(path) })).body.webhook as {
        id: number;
      };

      const tested = await account.call('POST', `/webhook/${id}/test`);
      expect(tested).toMatchObject({
        status: 422,
        body: { status: 'failed', error: expect.stringMatching(reason), webhook: { id, disabled: true } },
      });
      const logs = await account.call('GET', `/webhook/${id}/logs`);
      expect(logs.body).toMatchObject({
        total: 1,
        data: [{ event: 'test', successful: false, error_message: tested.body.error }],
      });
      // Stored as text PostgreSQL takes: no NUL, and at most the bytes read (each a character at most).
      const [stored] = await storedLogs(id);
      expect(stored!.responseBody ?? '').not.toContain('\u0000');
      expect((stored!.responseBody ?? '').length).toBeLessThanOrEqual(WEBHOOK_RESPONSE_BODY_LIMIT);
    },
    30_000,
  );

  it(`runs ${WEBHOOK_TESTS_PER_ACCOUNT} tests of an account at once, answering one more 429: its receivers cannot hold the connections everyone's calls need`, async () => {
    const account = await newAccount();
    const other = await newAccount();
    const { id: otherId } = await webhookAt(other, friendly, answerChallenge());
    const path = newPath();
    // Holds every call until released, as a receiver that never answers (within the 5 s deadline).
    const held: (() => void)[] = [];
    hostile.route(path, (call, response) => held.push(() => answerChallenge()(call, response)));
    const { id } = (await account.call('POST', '/webhook', { url: hostile.url(path) })).body.webhook as {
      id: number;
    };
    const running = Array.from({ length: WEBHOOK_TESTS_PER_ACCOUNT }, () =>
      account.call('POST', `/webhook/${id}/test`),
    );
    await waitUntil(
      'the tests at the receiver',
      () => held.length === WEBHOOK_TESTS_PER_ACCOUNT || undefined,
    );
    const refused = await account.call('POST', `/webhook/${id}/test`);
    expect(refused).toMatchObject({
      status: 429,
      body: { status: 'failed', error: 'Too many requests', retry_after: 5 },
    });
    expect(refused.headers.get('retry-after')).toBe('5');
    // Another account's test is not held up.
    expect((await other.call('POST', `/webhook/${otherId}/test`)).status).toBe(200);
    for (const release of held) release();
    expect((await Promise.all(running)).map((tested) => tested.status)).toEqual(
      Array(WEBHOOK_TESTS_PER_ACCOUNT).fill(200),
    );
    // Its slots are free again.
    hostile.route(path, answerChallenge());
    expect((await account.call('POST', `/webhook/${id}/test`)).status).toBe(200);
  });

  it('keeps what the receiver sent, each NUL and invalid byte as U+FFFD', async () => {
    const account = await newAccount();
    const { id } = await webhookAt(
      account,
      hostile,
      answerBytes(200, Buffer.concat([NUL_BODY, INVALID_UTF8])),
    );
    expect((await account.call('POST', `/webhook/${id}/test`)).status).toBe(422);
    const [stored] = await storedLogs(id);
    expect(stored!.responseBody).toBe(
      Buffer.concat([NUL_BODY, INVALID_UTF8]).toString('utf8').replaceAll('\u0000', '\uFFFD'),
    );
    expect(stored!.responseBody).toContain('\uFFFD');
  });
});

describe('scheduled deliveries of two accounts, one receiver hostile', () => {
  it("delivers the other account's event once, and logs each attempt once", async () => {
    const [walletA, walletB] = [laurel.chain!.wallets[5]!, laurel.chain!.wallets[6]!];
    const [a, b] = await Promise.all([newAccount(walletA), newAccount(walletB)]);
    // A's receiver answers the challenge, then 200 with NUL bytes and invalid UTF-8.
    const poisoned = await webhookAt(
      a,
      hostile,
      inTurn(answerChallenge(), answerBytes(200, Buffer.concat([NUL_BODY, INVALID_UTF8]))),
    );
    const clean = await webhookAt(b, friendly, answerChallenge());
    for (const [account, webhook] of [
      [a, poisoned],
      [b, clean],
    ] as const) {
      expect((await account.call('POST', `/webhook/${webhook.id}/test`)).status).toBe(200);
    }

    // Both accounts' transactions at once: their first attempts are recorded together.
    const hashes = await Promise.all(
      [walletA, walletB].map(async (wallet, index) => {
        const signer = wallet.connect(laurel.chain!.provider);
        const populated = await signer.populateTransaction({ to: wallet.address, value: 1n });
        const executed = await [a, b][index]!.call('POST', '/transactions/execute-and-wait', {
          chain: 'local',
          signed_transaction: await signer.signTransaction(populated),
        });
        expect(executed.body).toMatchObject({ status: 'success' });
        return executed.body.transactionHash as string;
      }),
    );

    const deliveries = await waitUntil('both events delivered', async () => {
      const done = await laurel.services.prisma.webhookDelivery.findMany({
        where: { webhookId: { in: [poisoned.id, clean.id] }, event: { event: 'transaction' } },
      });
      return done.length === 2 && done.every((delivery) => delivery.status !== 'pending') && done;
    });
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    // Nothing is left to run that could call a receiver again: no delivery or receipt job.
    await waitUntil(
      'no job left for the transactions or their deliveries',
      async () => {
        const [row] = await laurel.services.prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM graphile_worker.jobs
        WHERE key LIKE ANY(${hashes.map((hash) => `%${hash}`)}::text[]) OR task_identifier = ${jobs.deliverWebhook.name}`;
        return Number(row!.n) === 0;
      },
      45_000,
    );

    // Each receiver: the test call and the event, once each.
    expect(callsTo(hostile, poisoned.path).map((call) => JSON.parse(call.body).event)).toEqual([
      'test',
      'transaction',
    ]);
    expect(callsTo(friendly, clean.path).map((call) => JSON.parse(call.body).event)).toEqual([
      'test',
      'transaction',
    ]);
    for (const [account, webhook] of [
      [a, poisoned],
      [b, clean],
    ] as const) {
      const logs = await account.call('GET', `/webhook/${webhook.id}/logs`);
      expect(logs.body).toMatchObject({
        total: 2,
        data: [
          { event: 'transaction', successful: true, response_code: 200, attempt: 1 },
          { event: 'test', successful: true },
        ],
      });
    }
    const stored = await storedLogs(poisoned.id);
    expect(stored[1]!.responseBody).not.toContain('\u0000');
  }, 90_000);

  it('deactivates a webhook whose receiver fails every attempt with a hostile body, after 5 calls', async () => {
    const account = await newAccount(laurel.chain!.wallets[7]!);
    const webhook = await webhookAt(
      account,
      hostile,
      inTurn(answerChallenge(), answerBytes(503, Buffer.concat([NUL_BODY, INVALID_UTF8]))),
    );
    expect((await account.call('POST', `/webhook/${webhook.id}/test`)).status).toBe(200);
    const signer = laurel.chain!.wallets[7]!.connect(laurel.chain!.provider);
    const populated = await signer.populateTransaction({ to: signer.address, value: 1n });
    await account.call('POST', '/transactions/execute-and-wait', {
      chain: 'local',
      signed_transaction: await signer.signTransaction(populated),
    });
    await waitUntil(
      'the webhook deactivated',
      async () =>
        ((await account.call('GET', `/webhook/${webhook.id}`)).body.webhook as { disabled: boolean })
          .disabled,
      60_000,
    );
    const logs = await account.call('GET', `/webhook/${webhook.id}/logs?page_size=100`);
    const attempts = (logs.body.data as { event: string; attempt: number; response_code: number }[]).filter(
      (entry) => entry.event === 'transaction',
    );
    expect(attempts.map((entry) => [entry.attempt, entry.response_code])).toEqual(
      [5, 4, 3, 2, 1].map((attempt) => [attempt, 503]),
    );
    expect(callsTo(hostile, webhook.path)).toHaveLength(6); // the test call and 5 attempts
  }, 90_000);

  it('records an attempt PostgreSQL refuses without the receiver\u2019s text, and its neighbour in the batch as it is', async () => {
    // Past the edge's sanitising (a row built by hand): the batch's fallback is what is tested.
    const [first, second] = [await newAccount(), await newAccount()];
    const webhooks = await Promise.all(
      [first, second].map(async (account) =>
        laurel.services.prisma.webhook.create({
          data: {
            accountAddress: account.address,
            url: friendly.url(newPath()),
            events: [],
            disabled: false,
          },
        }),
      ),
    );
    const deliveryIds = await Promise.all(
      [first, second].map(async (account) => {
        const [row] = await laurel.services.prisma.$queryRaw<{ ids: bigint[] }[]>`
          SELECT ${webhookEventEmission({
            accountAddress: account.address,
            event: 'transaction',
            payload: { batch: true },
            requestId: null,
            firstAttemptSeconds: 3600, // held for this test: no job makes the attempt
          })} AS ids`;
        return row!.ids[0]!;
      }),
    );
    const result = (responseBody: string): WebhookCallResult => ({
      successful: true,
      responseCode: 200,
      contentType: 'text/plain',
      responseBody,
      errorMessage: null,
      retryAfterSeconds: null,
      durationMs: 3,
    });
    const repository = new WebhookDeliveriesRepository(laurel.services.pool);
    // Asked for in one turn: one statement, whose second row PostgreSQL cannot store.
    await Promise.all([
      repository.recordScheduled({
        deliveryId: deliveryIds[0]!,
        kind: 'scheduled',
        url: webhooks[0]!.url,
        result: result('fine'),
        nextAttemptDelayMs: 0,
      }),
      repository.recordScheduled({
        deliveryId: deliveryIds[1]!,
        kind: 'scheduled',
        url: webhooks[1]!.url,
        result: result('bad\u0000'),
        nextAttemptDelayMs: 0,
      }),
    ]);
    const [kept, refused] = await Promise.all(webhooks.map((webhook) => storedLogs(webhook.id)));
    expect(kept).toEqual([
      expect.objectContaining({ attempt: 1, successful: true, responseBody: 'fine', errorMessage: null }),
    ]);
    expect(refused).toEqual([
      expect.objectContaining({
        attempt: 1,
        successful: true,
        responseBody: null,
        errorMessage: expect.stringMatching(/^the receiver's answer could not be stored \(SQLSTATE 22/),
      }),
    ]);
    const statuses = await laurel.services.prisma.webhookDelivery.findMany({
      where: { id: { in: deliveryIds } },
    });
    expect(statuses.map((delivery) => delivery.status)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('bounds', () => {
  it(`refuses a webhook past ${PER_ACCOUNT} per account, also to a burst, in Shape A`, async () => {
    const account = await newAccount();
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => account.call('POST', '/webhook', { url: friendly.url(newPath()) })),
    );
    expect(burst.filter((result) => result.status === 201)).toHaveLength(PER_ACCOUNT);
    const refused = burst.filter((result) => result.status !== 201);
    expect(refused).toHaveLength(8 - PER_ACCOUNT);
    for (const result of refused) {
      expect(result).toMatchObject({
        status: 409,
        body: {
          status: 'failed',
          error: `webhook limit reached: an account may have ${PER_ACCOUNT} webhooks; delete one before creating another`,
        },
      });
    }
    // Another account is not affected; a deleted webhook makes room.
    expect(
      (await (await newAccount()).call('POST', '/webhook', { url: friendly.url(newPath()) })).status,
    ).toBe(201);
    const id = (burst.find((result) => result.status === 201)!.body.webhook as { id: number }).id;
    expect((await account.call('DELETE', `/webhook/${id}`)).status).toBe(200);
    expect((await account.call('POST', '/webhook', { url: friendly.url(newPath()) })).status).toBe(201);
  });

  it('answers 400 for a log page or page size past the documented maximum, never 500', async () => {
    const account = await newAccount();
    const { id } = await webhookAt(account, friendly, answerChallenge());
    await account.call('POST', `/webhook/${id}/test`);
    for (const query of [
      'page=99999999999999999999',
      'page=10001',
      'page_size=101',
      'page_size=99999999999999999999',
    ]) {
      const result = await account.call('GET', `/webhook/${id}/logs?${query}`);
      expect([query, result.status, result.body]).toEqual([
        query,
        400,
        {
          status: 'failed',
          error: expect.stringMatching(/^page(_size)?: Invalid: expected a/),
          issues: [expect.objectContaining({ code: 'invalid_string', validation: 'regex' })],
        },
      ]);
    }
    expect((await account.call('GET', `/webhook/${id}/logs?page=10000&page_size=100`)).body).toMatchObject({
      status: 'success',
      total: 1,
      page: 10000,
      page_size: 100,
      data: [],
    });
    const viaGraphql = await graphql(laurel.url, `{ webhookLogs(id: "${id}", page: 10001) { total } }`, {
      apiKey: await issueApiKey(laurel.url, Wallet.createRandom()),
    });
    expect(viaGraphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    // The leaderboard: the interface's zod result.
    const leaderboard = await request(
      laurel.url,
      'GET',
      '/v1/leaderboard?chain=local&page=99999999999999999999',
      {
        apiKey: await issueApiKey(laurel.url, Wallet.createRandom()),
      },
    );
    expect(leaderboard).toMatchObject({
      status: 400,
      body: {
        success: false,
        error: {
          issues: [
            {
              validation: 'regex',
              code: 'invalid_string',
              message: 'Invalid: expected a page number from 1 to 10000 in digits only, e.g. 2',
              path: ['page'],
            },
          ],
          name: 'ZodError',
        },
      },
    });
  });
});

describe('retries and tests go only to a verified url', () => {
  it('refuses to retry a log while a url changed by PATCH is not verified, then retries to the verified one', async () => {
    const account = await newAccount();
    const first = await webhookAt(account, friendly, answerChallenge());
    expect((await account.call('POST', `/webhook/${first.id}/test`)).status).toBe(200);
    const logId = ((await account.call('GET', `/webhook/${first.id}/logs`)).body.data as { id: string }[])[0]!
      .id;

    const moved = newPath();
    friendly.route(moved, answerChallenge());
    const patched = await account.call('PATCH', `/webhook/${first.id}`, { url: friendly.url(moved) });
    expect(patched.body).toMatchObject({ webhook: { disabled: true } });
    const refused = await account.call('POST', `/webhook/${first.id}/logs/${logId}/retry`);
    expect(refused).toMatchObject({
      status: 409,
      body: {
        status: 'failed',
        error: 'webhook is disabled: verify its url with POST /webhook/:id/test before retrying',
      },
    });
    expect(callsTo(friendly, moved)).toHaveLength(0);
    expect(callsTo(friendly, first.path)).toHaveLength(1);

    expect((await account.call('POST', `/webhook/${first.id}/test`)).status).toBe(200);
    const retried = await account.call('POST', `/webhook/${first.id}/logs/${logId}/retry`);
    expect(retried).toMatchObject({
      status: 200,
      body: { status: 'success', log: { url: friendly.url(moved) } },
    });
    expect(callsTo(friendly, moved)).toHaveLength(2);
    expect(callsTo(friendly, first.path)).toHaveLength(1);
  });

  it('does not activate a url that a PATCH put in place while the old one answered the challenge', async () => {
    const account = await newAccount();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const old = await webhookAt(account, friendly, (call, response) => {
      void held.then(() => answerChallenge()(call, response));
    });
    const testing = account.call('POST', `/webhook/${old.id}/test`);
    await friendly.waitForCalls(old.path, 1);
    const moved = newPath();
    await account.call('PATCH', `/webhook/${old.id}`, { url: friendly.url(moved) });
    release();
    expect(await testing).toMatchObject({
      status: 422,
      body: {
        status: 'failed',
        error: 'the url changed during its verification: verify the new url',
        webhook: { id: old.id, url: friendly.url(moved), disabled: true },
      },
    });
    expect((await account.call('GET', `/webhook/${old.id}`)).body).toMatchObject({
      webhook: { disabled: true },
    });
  });
});

describe('the outbound connections', () => {
  const userAgent = 'Laurel-Webhooks/test';
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    receivers.push(...(await Promise.all(Array.from({ length: 4 }, () => startWebhookReceiver()))));
    for (const receiver of receivers) receiver.route('/', (_call, response) => json(response, 200, {}));
  });
  afterAll(() => Promise.all(receivers.map((receiver) => receiver.stop())));
  const open = () => receivers.reduce((sum, receiver) => sum + receiver.openConnections, 0);

  it('holds at most OUTBOUND_MAX_SOCKETS over every host: an idle one of another host makes room at once', async () => {
    // Idle sockets would stay a minute: only making room lets the third host's call through in time.
    const client = await WebhookHttpClient.create({
      allowPrivateNetworks: true,
      userAgent,
      maxSockets: 2,
      idleSocketMs: 60_000,
    });
    try {
      for (const receiver of [...receivers, ...receivers]) {
        const result = await client.post(receiver.url('/'), '{}', {});
        expect(result).toMatchObject({ successful: true, responseCode: 200 });
        expect(result.durationMs).toBeLessThan(2_000);
        await waitUntil('at most 2 connections open', () => open() <= 2);
      }
    } finally {
      client.destroy();
    }
  });

  it('closes connections idle for OUTBOUND_IDLE_SOCKET_MS', async () => {
    await waitUntil('no connection left from before', () => open() === 0);
    const client = await WebhookHttpClient.create({
      allowPrivateNetworks: true,
      userAgent,
      idleSocketMs: 200,
    });
    try {
      for (const receiver of receivers) {
        expect(await client.post(receiver.url('/'), '{}', {})).toMatchObject({ successful: true });
      }
      expect(open()).toBeGreaterThan(0);
      // Well before the receivers' own keep-alive timeout (Node's 5 s) would close them.
      await waitUntil('every idle connection closed', () => open() === 0, 2_000);
    } finally {
      client.destroy();
    }
  });
});

describe('retention', () => {
  it('maintenance__prune deletes events past WEBHOOK_LOG_RETENTION_DAYS with their deliveries and logs, not a pending one', async () => {
    const account = await newAccount();
    const { id } = await webhookAt(account, friendly, answerChallenge());
    await account.call('POST', `/webhook/${id}/test`); // an old one, once aged
    await account.call('POST', `/webhook/${id}/test`); // a recent one
    const [row] = await laurel.services.prisma.$queryRaw<{ ids: bigint[] }[]>`
      SELECT ${webhookEventEmission({
        accountAddress: account.address,
        event: 'transaction',
        payload: { pending: true },
        requestId: null,
        firstAttemptSeconds: 3600,
      })} AS ids`;
    const pendingDelivery = row!.ids[0]!;
    const [oldest] = await storedLogs(id);
    const aged = await laurel.services.prisma.$executeRaw`
      UPDATE webhook_events SET created_at = now() - interval '31 days'
      WHERE id IN (SELECT event_id FROM webhook_deliveries WHERE id IN (${oldest!.deliveryId}, ${pendingDelivery}))`;
    expect(aged).toBe(2);

    await runJobOnce(laurel, jobs.prune, {});
    await waitUntil('the old event pruned', async () => (await storedLogs(id)).length === 1);

    const logs = await account.call('GET', `/webhook/${id}/logs`);
    expect(logs.body).toMatchObject({ total: 1, data: [{ event: 'test', successful: true }] });
    expect(
      await laurel.services.prisma.webhookDelivery.findUnique({ where: { id: oldest!.deliveryId } }),
    ).toBeNull();
    expect(
      await laurel.services.prisma.webhookDelivery.findUnique({ where: { id: pendingDelivery } }),
    ).toMatchObject({
      status: 'pending',
    });
  });
});
