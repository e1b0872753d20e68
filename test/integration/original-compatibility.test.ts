import { createHmac } from 'node:crypto';
import { Transaction, type Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { graphql, request, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Each point where the original service's published reference answers differently from what the
 * interface states, walked as a client of the original would meet it (docs/moving-from-the-original.md
 * lists them): the webhook paths and statuses, `disabled_at`, execute-and-wait's timeout, the
 * signature header bridged by WEBHOOK_SIGNATURE_HEADER, POST /credit/transfer, GraphQL's Int paging,
 * and the API reference that documents them.
 */
let laurel: TestLaurel;
let receiver: WebhookReceiver;
let owner: Wallet;
let apiKey: string;

const call = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
  request(laurel.url, method, `/v1${path}`, { apiKey, body });

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([
    startTestLaurel({
      chain: true,
      // The original's header name; execute-and-wait gives up after 1 s.
      env: { WEBHOOK_SIGNATURE_HEADER: 'x-openformat-signature', EXECUTE_WAIT_TIMEOUT_SECONDS: '1' },
    }),
    startWebhookReceiver(),
  ]);
  owner = laurel.chain!.wallets[3];
  apiKey = await issueApiKey(laurel.url, owner);
});
afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

describe('webhooks as the original service answers them', () => {
  let id: number;
  let createdAt: string;

  it('POST /webhook answers 201 with the webhook, disabled_at the time it was created disabled', async () => {
    receiver.route('/original', answerChallenge('x-openformat-signature'));
    const created = await call('POST', '/webhook', {
      url: receiver.url('/original'),
      events: ['transaction'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      status: 'success',
      webhook: {
        id: expect.any(Number),
        url: receiver.url('/original'),
        events: ['transaction'],
        disabled: true,
        disabled_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_at: expect.any(String),
      },
    });
    const webhook = created.body.webhook as { id: number; disabled_at: string; created_at: string };
    expect(webhook.disabled_at).toBe(webhook.created_at);
    ({ id, created_at: createdAt } = webhook);
  });

  it('signs calls with x-openformat-signature when WEBHOOK_SIGNATURE_HEADER says so; a receiver of the original verifies', async () => {
    const tested = await call('POST', `/webhook/${id}/test`);
    expect(tested).toMatchObject({ status: 200, body: { webhook: { disabled: false } } });
    const [test] = await receiver.waitForCalls('/original', 1);
    const secret = (await call('GET', '/webhook/secret')).body.webhook_secret as string;
    // The original's rule: base64 HMAC-SHA256 of the raw body, keyed with the secret.
    expect(test.headers['x-openformat-signature']).toBe(
      createHmac('sha256', secret).update(test.body).digest('base64'),
    );
    expect(test.headers['x-laurel-signature']).toBeUndefined();
  });

  it('keeps disabled_at a timestamp while active: the last time it was disabled', async () => {
    const active = await call('GET', `/webhook/${id}`);
    expect(active.body.webhook).toMatchObject({ disabled: false, disabled_at: createdAt });
  });

  it('PUT /webhook/:id updates as PATCH does (fields left out keep their value)', async () => {
    const put = await call('PUT', `/webhook/${id}`, { events: [] });
    expect(put).toMatchObject({
      status: 200,
      body: {
        status: 'success',
        webhook: { id, events: [], url: receiver.url('/original'), disabled: false },
      },
    });
    receiver.route('/moved', answerChallenge('x-openformat-signature'));
    const moved = await call('PUT', `/webhook/${id}`, {
      url: receiver.url('/moved'),
      events: ['transaction'],
    });
    const webhook = moved.body.webhook as { disabled: boolean; disabled_at: string; events: string[] };
    // A new url is disabled until verified again, disabled_at the time of the change.
    expect(webhook).toMatchObject({ disabled: true, events: ['transaction'] });
    expect(Date.parse(webhook.disabled_at)).toBeGreaterThan(Date.parse(createdAt));
    expect((await call('PUT', `/webhook/${id}`, { url: 'http://plain.test/' })).body).toEqual({
      status: 'failed',
      error: 'only HTTPS urls allowed',
    });
  });

  it('keeps createWebhook unchanged over GraphQL', async () => {
    const result = await graphql<{ createWebhook: { disabled: boolean; disabled_at: string } }>(
      laurel.url,
      'mutation($url: String!) { createWebhook(url: $url) { disabled disabled_at } }',
      { apiKey, variables: { url: receiver.url('/graphql') } },
    );
    expect(result.status).toBe(200);
    expect(result.body.data?.createWebhook).toEqual({ disabled: true, disabled_at: expect.any(String) });
  });
});

it("answers execute-and-wait's timeout with 200, as the original does", async () => {
  const provider = laurel.chain!.provider;
  await provider.send('evm_setAutomine', [false]);
  try {
    const signed = await owner.signTransaction(
      await owner.populateTransaction({ to: owner.address, value: 1n }),
    );
    const result = await call('POST', '/transactions/execute-and-wait', {
      chain: 'local',
      signed_transaction: signed,
    });
    expect(result).toMatchObject({
      status: 200,
      body: { status: 'failed', error: 'Timeout', transactionHash: Transaction.from(signed).hash },
    });
  } finally {
    await provider.send('evm_setAutomine', [true]);
    await provider.send('evm_mine', []);
  }
});

it('serves POST /credit/transfer with the published request (Shape B failures)', async () => {
  const published = {
    chain: 'local',
    token_id: owner.address, // not a token: the path exists and answers as the other credit paths
    holder_address: owner.address,
    receiver_address: owner.address,
    amount: 1,
    deadline: 1_900_000_000,
    signedPermit: { r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, v: 27 },
  };
  expect(await call('POST', '/credit/transfer', published)).toMatchObject({
    status: 404,
    body: { success: false, error: { code: 'token_not_found' } },
  });
});

it('takes GraphQL paging as Int (REST keeps digit strings)', async () => {
  const result = await graphql<{ leaderboard: unknown[] }>(
    laurel.url,
    'query { leaderboard(chain: "local", page: 2, page_size: 5, start: 0, end: 2000000000) { user } }',
    { apiKey },
  );
  expect(result.body).toEqual({ data: { leaderboard: [] } });
  const negative = await graphql(laurel.url, 'query { leaderboard(chain: "local", page: -1) { user } }', {
    apiKey,
  });
  expect(negative.body.errors?.[0]).toMatchObject({
    message: 'page: Invalid: expected a page number from 1 to 10000 in digits only, e.g. 2',
    extensions: { code: 'BAD_USER_INPUT' },
  });
  const rest = await call('GET', '/leaderboard?chain=local&page=two');
  expect(rest).toMatchObject({
    status: 400,
    body: {
      success: false,
      error: { issues: [{ validation: 'regex', code: 'invalid_string', path: ['page'] }] },
    },
  });
});

it('documents each point in the API reference', async () => {
  const document = (await request(laurel.url, 'GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { responses: Record<string, unknown>; description?: string }>>;
  };
  expect(Object.keys(document.paths['/v1/webhook'].post.responses)).toContain('201');
  expect(Object.keys(document.paths['/v1/webhook'].post.responses)).not.toContain('200');
  expect(document.paths['/v1/webhook/{id}'].put).toBeDefined();
  const wait = document.paths['/v1/transactions/execute-and-wait'].post;
  expect(Object.keys(wait.responses)).not.toContain('202');
  expect(wait.description).toContain("200 with {status:'failed', error:'Timeout'");
  expect(document.paths['/v1/credit/transfer'].post).toBeDefined();
  expect(document.paths['/v1/transactions/{hash}'].get).toBeDefined();
  expect(document.paths['/v1/transactions/reservations'].delete).toBeDefined();
});
