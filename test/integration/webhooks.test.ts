/**
 * The webhook endpoints through HTTP (REST under /v1 and /api/v1, and GraphQL) with API keys of
 * real wallets, against an HTTPS receiver of the test CA, a running worker and anvil: creation and
 * its documented failures, verification, the secret, logs, management, another account's 404s,
 * and the `transaction` event sent once per transaction.
 */
import { createHmac } from 'node:crypto';
import type { Wallet } from 'ethers';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { connectDatabase, type Prisma } from '../../src/db/prisma';
import { AppError } from '../../src/errors';
import { jobs } from '../../src/jobs/jobs';
import { renderError, STATUS_FAILED_BODY } from '../../src/operations/error-shapes';
import { WebhooksService } from '../../src/modules/webhooks/webhooks.service';
import { emitWebhookEvent, WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository';
import { webhooksModule } from '../../src/modules/webhooks/webhooks.module';
import { issueApiKey } from '../helpers/auth';
import { graphql, request, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import {
  answerChallenge,
  failTimes,
  json,
  startWebhookReceiver,
  type ReceivedCall,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

let laurel: TestLaurel;
let receiver: WebhookReceiver;
let owner: Wallet;
let ownerKey: string;
let otherKey: string;

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([
    // Retries an hour apart keep failed deliveries pending while the test looks at them;
    // execute-and-wait hands over to the receipt job after 2 s.
    startTestLaurel({
      chain: true,
      // The owner registers a webhook per case, more than an account may by default.
      env: {
        WEBHOOK_RETRY_BASE_MS: '3600000',
        EXECUTE_WAIT_TIMEOUT_SECONDS: '2',
        WEBHOOKS_PER_ACCOUNT: '100',
      },
    }),
    startWebhookReceiver(),
  ]);
  owner = laurel.chain!.wallets[1]!;
  [ownerKey, otherKey] = await Promise.all([
    issueApiKey(laurel.url, owner),
    issueApiKey(laurel.url, laurel.chain!.wallets[2]!),
  ]);
});

afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

const call = (method: string, path: string, body?: unknown, apiKey = ownerKey): Promise<HttpResult> =>
  request(laurel.url, method, `/v1${path}`, { apiKey, body });

let paths = 0;
const newPath = () => `/api-hook-${++paths}`;

/** A webhook of the owner at a fresh receiver path answering the challenge; verified when asked. */
async function createWebhook(options: { verified?: boolean; events?: string[] } = {}) {
  const path = newPath();
  receiver.route(path, answerChallenge());
  const created = await call('POST', '/webhook', { url: receiver.url(path), events: options.events });
  expect(created.status).toBe(201);
  const id = (created.body.webhook as { id: number }).id;
  if (options.verified) expect((await call('POST', `/webhook/${id}/test`)).status).toBe(200);
  return { id, path };
}

const WEBHOOK = {
  id: expect.any(Number),
  url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\//),
  events: expect.any(Array),
  disabled: expect.any(Boolean),
  disabled_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
};

describe('POST /webhook', () => {
  it('registers a disabled webhook', async () => {
    const url = receiver.url(newPath());
    const created = await call('POST', '/webhook', { url, events: ['transaction'] });
    expect(created).toMatchObject({
      status: 201,
      body: { status: 'success', webhook: { ...WEBHOOK, url, events: ['transaction'], disabled: true } },
    });
    // Created disabled: disabled_at is the creation time.
    const webhook = created.body.webhook as { disabled_at: string; created_at: string };
    expect(webhook.disabled_at).toBe(webhook.created_at);
    // Omitted events: every event.
    const all = await call('POST', '/webhook', { url });
    expect(all.body.webhook).toMatchObject({ events: [], disabled: true });
  });

  it.each([
    ['http://example.com/hook', undefined, 'only HTTPS urls allowed'],
    ['not a url', undefined, 'invalid url'],
    [
      'https://example.com/hook',
      ['transaction', 'nope'],
      'webhook events not found: "nope"; the events are "transaction" (or omit events for all)',
    ],
  ])('refuses %s %j with the documented message', async (url, events, error) => {
    expect(await call('POST', '/webhook', { url, events })).toEqual(
      expect.objectContaining({ status: 400, body: { status: 'failed', error } }),
    );
  });

  it('answers a missing url in Shape A', async () => {
    const result = await call('POST', '/webhook', {});
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ status: 'failed', error: expect.stringContaining('url') });
  });

  it('answers "database operation failed" when the database is unreachable', async () => {
    // The service over a client whose database does not answer (nothing listens on port 1).
    const unreachable = connectDatabase('postgresql://laurel@127.0.0.1:1/laurel');
    try {
      const { secrets, deliverer, firstAttempts } = laurel.modules.serviceOf(webhooksModule);
      const service = new WebhooksService({
        limits: { perAccount: 20, retentionDays: 30, overlapSeconds: 0, overlapMaxSeconds: 86_400 },
        repository: new WebhooksRepository(unreachable.prisma),
        secrets,
        deliverer,
        firstAttempts,
      });
      const failure = await service
        .create({ url: 'https://example.com/hook' }, owner.address)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AppError);
      expect(renderError(STATUS_FAILED_BODY, failure as AppError)).toEqual({
        status: 503,
        body: { status: 'failed', error: 'database operation failed' },
      });
    } finally {
      await unreachable.prisma.$disconnect();
      await unreachable.pool.end();
    }
  });

  it('is served under /api/v1 and over GraphQL too', async () => {
    const url = receiver.url(newPath());
    const viaApi = await request(laurel.url, 'POST', '/api/v1/webhook', { apiKey: ownerKey, body: { url } });
    expect(viaApi.body).toMatchObject({ status: 'success', webhook: { url } });
    const viaGraphql = await graphql<{ createWebhook: { url: string; disabled: boolean } }>(
      laurel.url,
      'mutation($url: String!) { createWebhook(url: $url) { id url disabled } }',
      { variables: { url }, apiKey: ownerKey },
    );
    expect(viaGraphql.body.data?.createWebhook).toMatchObject({ url, disabled: true });
    const refused = await graphql(laurel.url, 'mutation { createWebhook(url: "http://x.test/") { id } }', {
      apiKey: ownerKey,
    });
    expect(refused.body.errors?.[0]?.message).toBe('only HTTPS urls allowed');
  });
});

describe('POST /webhook/:id/test', () => {
  it('activates a webhook whose receiver answers the challenge', async () => {
    const { id } = await createWebhook();
    const tested = await call('POST', `/webhook/${id}/test`);
    expect(tested).toMatchObject({
      status: 200,
      body: { status: 'success', webhook: { id, disabled: false } },
    });
  });

  it('answers 404, not 500, when the webhook is deleted while its test call is in flight', async () => {
    const path = newPath();
    let answerNow: () => void = () => undefined;
    const deleted = new Promise<void>((resolve) => (answerNow = resolve));
    // The receiver holds the call until the webhook is deleted, then answers the challenge.
    receiver.route(path, (received, response) => {
      void deleted.then(() => answerChallenge()(received, response));
    });
    const created = await call('POST', '/webhook', { url: receiver.url(path) });
    const id = (created.body.webhook as { id: number }).id;
    const testing = call('POST', `/webhook/${id}/test`);
    await receiver.waitForCalls(path, 1);
    expect((await call('DELETE', `/webhook/${id}`)).status).toBe(200);
    answerNow();
    expect(await testing).toMatchObject({
      status: 404,
      body: { status: 'failed', error: 'webhook not found' },
    });
    // And a second delete of the same webhook is a 404 too.
    expect((await call('DELETE', `/webhook/${id}`)).status).toBe(404);
  });

  it('answers the reason in Shape A when the receiver fails the challenge', async () => {
    const path = newPath();
    receiver.route(path, (_call, response) => json(response, 200, { challenge: 'wrong' }));
    const created = await call('POST', '/webhook', { url: receiver.url(path) });
    const id = (created.body.webhook as { id: number }).id;
    const tested = await call('POST', `/webhook/${id}/test`);
    expect(tested.status).toBe(422);
    expect(tested.body).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^challenge failed/),
      webhook: { id, disabled: true },
    });
  });
});

describe('the webhook secret', () => {
  it('is one per account, stable until rotated, the same over GraphQL', async () => {
    const first = await call('GET', '/webhook/secret');
    expect(first.body).toEqual({
      status: 'success',
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect((await call('GET', '/webhook/secret')).body).toEqual(first.body);
    const other = await call('GET', '/webhook/secret', undefined, otherKey);
    expect(other.body.webhook_secret).not.toBe(first.body.webhook_secret);

    const rotated = await call('POST', '/webhook/secret');
    expect(rotated.body.webhook_secret).not.toBe(first.body.webhook_secret);
    const viaGraphql = await graphql<{ webhookSecret: { webhook_secret: string } }>(
      laurel.url,
      '{ webhookSecret { webhook_secret } }',
      { apiKey: ownerKey },
    );
    expect(viaGraphql.body.data?.webhookSecret.webhook_secret).toBe(rotated.body.webhook_secret);
  });
});

describe('rotating the webhook secret with an overlap', () => {
  // An account of its own: its events go to the webhooks of these cases only.
  let rotator: Wallet;
  let rotatorKey: string;
  beforeAll(async () => {
    rotator = laurel.chain!.wallets[3]!;
    rotatorKey = await issueApiKey(laurel.url, rotator);
  });
  const rotatorCall = (method: string, path: string, body?: unknown) => call(method, path, body, rotatorKey);
  const secretNow = async () => (await rotatorCall('GET', '/webhook/secret')).body.webhook_secret as string;

  /** An active webhook of the rotator at a fresh path answering the challenge. */
  async function rotatorWebhook(): Promise<{ id: number; path: string }> {
    const path = newPath();
    receiver.route(path, answerChallenge());
    const created = await rotatorCall('POST', '/webhook', { url: receiver.url(path) });
    const id = (created.body.webhook as { id: number }).id;
    expect((await rotatorCall('POST', `/webhook/${id}/test`)).status).toBe(200);
    return { id, path };
  }

  /** Emits an event of the rotator and resolves with its call to `path`. */
  async function nextEvent(path: string, n: number): Promise<ReceivedCall> {
    const before = receiver.calls.filter((received) => received.path === path).length;
    await laurel.services.prisma.$transaction((db) => emitForAccount(db, rotator.address, { n }));
    return (await receiver.waitForCalls(path, before + 1))[before]!;
  }

  it('signs every call with both secrets during the window (REST, a real transaction), test calls with the new one', async () => {
    const { id, path } = await rotatorWebhook();
    const old = await secretNow();
    const before = Date.now();
    const rotated = await rotatorCall('POST', '/webhook/secret', { overlap_seconds: 3600 });
    expect(rotated).toMatchObject({
      status: 200,
      body: {
        status: 'success',
        webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        previous_secret_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    const secret = rotated.body.webhook_secret as string;
    expect(secret).not.toBe(old);
    const expiresAt = Date.parse(rotated.body.previous_secret_expires_at as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3_599_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_601_000);
    expect((await rotatorCall('GET', '/webhook/secret')).body).toEqual(rotated.body);

    // A real transaction of the account: its event carries both Standard Webhooks signatures.
    const signer = rotator.connect(laurel.chain!.provider);
    const executed = await rotatorCall('POST', '/transactions/execute-and-wait', {
      chain: 'local',
      signed_transaction: await signer.signTransaction(
        await signer.populateTransaction({ to: rotator.address, value: 1n }),
      ),
    });
    expect(executed.body).toMatchObject({ status: 'success' });
    const [, event] = await receiver.waitForCalls(path, 2); // the test call, then the event
    expect(JSON.parse(event!.body)).toMatchObject({
      event: 'transaction',
      payload: { hash: executed.body.transactionHash },
    });
    expect(standardSignatures(event!)).toHaveLength(2);
    const headers = event!.headers as Record<string, string>;
    // A receiver holding either secret verifies the call with a Standard Webhooks library.
    expect(new StandardWebhook(secret).verify(event!.body, headers)).toEqual(JSON.parse(event!.body));
    expect(new StandardWebhook(old).verify(event!.body, headers)).toEqual(JSON.parse(event!.body));
    // The legacy header has room for one signature: the new secret's.
    expect(event!.headers['x-laurel-signature']).toBe(bodySignature(secret, event!.body));

    // The test call (the challenge) proves the receiver holds the new secret: signed with it alone.
    expect((await rotatorCall('POST', `/webhook/${id}/test`)).status).toBe(200);
    const [, , test] = await receiver.waitForCalls(path, 3);
    expect(JSON.parse(test!.body)).toMatchObject({ event: 'test' });
    expect(standardSignatures(test!)).toHaveLength(1);
    expect(test!.headers['x-laurel-signature']).toBe(bodySignature(secret, test!.body));
    expect(new StandardWebhook(secret).verify(test!.body, test!.headers as Record<string, string>)).toEqual(
      JSON.parse(test!.body),
    );
    expect(() =>
      new StandardWebhook(old).verify(test!.body, test!.headers as Record<string, string>),
    ).toThrow();
  });

  it('keeps a receiver with only the old secret working until the window ends, then not (GraphQL, a short window)', async () => {
    const { path } = await rotatorWebhook();
    const old = await secretNow();
    const rotated = await graphql<{
      rotateWebhookSecret: { webhook_secret: string; previous_secret_expires_at: string | null };
    }>(
      laurel.url,
      'mutation { rotateWebhookSecret(overlap_seconds: 5) { webhook_secret previous_secret_expires_at } }',
      { apiKey: rotatorKey },
    );
    const { webhook_secret: secret, previous_secret_expires_at: expiresAt } =
      rotated.body.data!.rotateWebhookSecret;
    expect(expiresAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    const shown = async () =>
      (
        await graphql<{
          webhookSecret: { webhook_secret: string; previous_secret_expires_at: string | null };
        }>(laurel.url, '{ webhookSecret { webhook_secret previous_secret_expires_at } }', {
          apiKey: rotatorKey,
        })
      ).body.data!.webhookSecret;
    expect(await shown()).toEqual({ webhook_secret: secret, previous_secret_expires_at: expiresAt });

    const during = await nextEvent(path, 1);
    expect(Number(during.headers['webhook-timestamp']) * 1000).toBeLessThan(Date.parse(expiresAt!));
    expect(new StandardWebhook(old).verify(during.body, during.headers as Record<string, string>)).toEqual(
      JSON.parse(during.body),
    );

    // Once the window is over (the API no longer shows an expiry), only the new secret signs.
    await waitUntil(
      'the window over',
      async () => (await shown()).previous_secret_expires_at === null,
      20_000,
    );
    const after = await nextEvent(path, 2);
    expect(standardSignatures(after)).toHaveLength(1);
    expect(() =>
      new StandardWebhook(old).verify(after.body, after.headers as Record<string, string>),
    ).toThrow();
    expect(new StandardWebhook(secret).verify(after.body, after.headers as Record<string, string>)).toEqual(
      JSON.parse(after.body),
    );
    expect((await rotatorCall('GET', '/webhook/secret')).body).toEqual({
      status: 'success',
      webhook_secret: secret,
    });
  });

  it('keeps only the immediately previous secret when rotated again within the window; no body replaces at once', async () => {
    const { path } = await rotatorWebhook();
    const first = await secretNow();
    const second = (await rotatorCall('POST', '/webhook/secret', { overlap_seconds: 3600 })).body
      .webhook_secret as string;
    const third = (await rotatorCall('POST', '/webhook/secret', { overlap_seconds: 3600 })).body
      .webhook_secret as string;
    const twice = await nextEvent(path, 1);
    const headers = twice.headers as Record<string, string>;
    expect(standardSignatures(twice)).toHaveLength(2);
    expect(new StandardWebhook(third).verify(twice.body, headers)).toEqual(JSON.parse(twice.body));
    expect(new StandardWebhook(second).verify(twice.body, headers)).toEqual(JSON.parse(twice.body));
    expect(() => new StandardWebhook(first).verify(twice.body, headers)).toThrow();

    // The interface's rotation (no body): the new secret alone, as before, and no expiry shown.
    const replaced = await rotatorCall('POST', '/webhook/secret');
    expect(replaced.body).toEqual({ status: 'success', webhook_secret: expect.any(String) });
    const fourth = replaced.body.webhook_secret as string;
    expect((await rotatorCall('GET', '/webhook/secret')).body).toEqual(replaced.body);
    const now = await nextEvent(path, 2);
    expect(standardSignatures(now)).toHaveLength(1);
    expect(now.headers['x-laurel-signature']).toBe(bodySignature(fourth, now.body));
    expect(new StandardWebhook(fourth).verify(now.body, now.headers as Record<string, string>)).toEqual(
      JSON.parse(now.body),
    );
    expect(() =>
      new StandardWebhook(third).verify(now.body, now.headers as Record<string, string>),
    ).toThrow();
  });

  it('refuses a window that is negative, not an integer or past WEBHOOK_SECRET_OVERLAP_MAX_SECONDS, changing nothing', async () => {
    const secret = await secretNow();
    for (const overlap of [86_401, -1, 1.5, '60']) {
      const refused = await rotatorCall('POST', '/webhook/secret', { overlap_seconds: overlap });
      expect([overlap, refused.status, refused.body]).toEqual([
        overlap,
        400,
        {
          status: 'failed',
          error: expect.stringMatching(/^overlap_seconds: /),
          issues: [expect.objectContaining({ path: ['overlap_seconds'] })],
        },
      ]);
    }
    expect((await rotatorCall('POST', '/webhook/secret', { overlap_seconds: 86_401 })).body.error).toBe(
      'overlap_seconds: must be at most 86400 seconds (WEBHOOK_SECRET_OVERLAP_MAX_SECONDS)',
    );
    const viaGraphql = await graphql(
      laurel.url,
      'mutation { rotateWebhookSecret(overlap_seconds: 86401) { webhook_secret } }',
      { apiKey: rotatorKey },
    );
    expect(viaGraphql.body.errors?.[0]).toMatchObject({
      message: 'overlap_seconds: must be at most 86400 seconds (WEBHOOK_SECRET_OVERLAP_MAX_SECONDS)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(await secretNow()).toBe(secret);
  });
});

/** The entries of a call's Standard Webhooks `webhook-signature` header. */
function standardSignatures(received: ReceivedCall): string[] {
  return String(received.headers['webhook-signature']).split(' ');
}

/** The interface's body signature (x-laurel-signature) of `body` with `secret`. */
function bodySignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

describe('GET /webhook/:id/logs', () => {
  it('pages the attempts newest first, with the documented fields', async () => {
    const { id } = await createWebhook();
    for (let i = 0; i < 3; i++) await call('POST', `/webhook/${id}/test`);
    const page = await call('GET', `/webhook/${id}/logs?page=1&page_size=2`);
    expect(page.body).toMatchObject({ status: 'success', total: 3, page: 1, page_size: 2 });
    const data = page.body.data as Record<string, unknown>[];
    expect(data).toHaveLength(2);
    expect(data[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      payload: null,
      webhook_id: id,
      event: 'test',
      idempotency_key: expect.stringMatching(/^evt_/),
      url: expect.stringContaining('https://127.0.0.1'),
      attempt: 1,
      successful: true,
      response_code: 200,
      error_message: null,
      created_at: expect.any(String),
    });
    expect(Number(data[0]!.id)).toBeGreaterThan(Number(data[1]!.id));
    const second = await call('GET', `/webhook/${id}/logs?page=2&page_size=2`);
    expect(second.body.data).toHaveLength(1);

    const viaGraphql = await graphql<{ webhookLogs: { total: number; data: { event: string }[] } }>(
      laurel.url,
      `{ webhookLogs(id: "${id}", page_size: 1) { total data { event successful } } }`,
      { apiKey: ownerKey },
    );
    expect(viaGraphql.body.data?.webhookLogs).toMatchObject({ total: 3, data: [{ event: 'test' }] });
  });

  it.each(['page=a', 'page_size=-1', 'page=0', 'page_size=101'])(
    'answers 400 in Shape A for %s',
    async (query) => {
      const { id } = await createWebhook();
      const result = await call('GET', `/webhook/${id}/logs?${query}`);
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ status: 'failed', error: expect.any(String) });
    },
  );

  it('answers 404 for an unknown webhook', async () => {
    expect(await call('GET', '/webhook/999999/logs')).toMatchObject({
      status: 404,
      body: { status: 'failed', error: 'webhook not found' },
    });
  });
});

describe('managing webhooks', () => {
  it('lists, reads and updates them; a changed url must be verified again', async () => {
    const { id } = await createWebhook({ verified: true });
    const listed = await call('GET', '/webhooks');
    expect(listed.body.webhooks).toEqual(expect.arrayContaining([expect.objectContaining({ id })]));
    expect((await call('GET', `/webhook/${id}`)).body).toMatchObject({
      status: 'success',
      webhook: { id, disabled: false },
    });

    const eventsOnly = await call('PATCH', `/webhook/${id}`, { events: ['transaction'] });
    expect(eventsOnly.body.webhook).toMatchObject({ events: ['transaction'], disabled: false });
    const newUrl = receiver.url(newPath());
    const moved = await call('PATCH', `/webhook/${id}`, { url: newUrl });
    expect(moved.body.webhook).toMatchObject({
      url: newUrl,
      disabled: true,
      disabled_at: expect.any(String),
    });
    expect((await call('PATCH', `/webhook/${id}`, { url: 'http://x.test/' })).body).toEqual({
      status: 'failed',
      error: 'only HTTPS urls allowed',
    });
  });

  it('deletes a webhook and cancels its pending deliveries', async () => {
    const path = newPath();
    let failing = false;
    receiver.route(path, (call, response) =>
      failing ? json(response, 500, {}) : answerChallenge()(call, response),
    );
    const created = await call('POST', '/webhook', { url: receiver.url(path) });
    const id = (created.body.webhook as { id: number }).id;
    await call('POST', `/webhook/${id}/test`);
    failing = true;
    await laurel.services.prisma.$transaction((db) => emitForAccount(db, owner.address, { deleted: 'soon' }));
    // The first attempt fails; the next is an hour away.
    await waitUntil(
      'the failed first attempt',
      async () =>
        (await laurel.services.prisma.webhookLog.count({
          where: { webhookId: id, attempt: 1, successful: false },
        })) > 0,
    );
    expect(await deliveryJobsOf(id)).toBe(1);

    const deleted = await call('DELETE', `/webhook/${id}`);
    expect(deleted.body).toMatchObject({ status: 'success', webhook: { id } });
    expect(await deliveryJobsOf(id)).toBe(0);
    expect((await call('GET', `/webhook/${id}`)).status).toBe(404);
  });

  it('sends a logged event again with the same idempotency key, as a new attempt', async () => {
    const path = newPath();
    receiver.route(
      path,
      failTimes(1, (_c, r) => json(r, 200, {})),
    );
    const created = await call('POST', '/webhook', { url: receiver.url(path) });
    const id = (created.body.webhook as { id: number }).id;
    await laurel.services.prisma.webhook.update({ where: { id }, data: { disabled: false } });
    await laurel.services.prisma.$transaction((db) => emitForAccount(db, owner.address, { retry: true }));
    const [first] = await receiver.waitForCalls(path, 1);
    const logs = await waitUntil('the failed attempt logged', async () => {
      const page = await call('GET', `/webhook/${id}/logs`);
      return (page.body.total as number) === 1 && (page.body.data as { id: string; successful: boolean }[]);
    });
    expect(logs[0]!.successful).toBe(false);

    const retried = await call('POST', `/webhook/${id}/logs/${logs[0]!.id}/retry`);
    expect(retried.body).toMatchObject({
      status: 'success',
      log: {
        attempt: 2,
        successful: true,
        response_code: 200,
        event: 'transaction',
        payload: { retry: true },
      },
    });
    const [, again] = await receiver.waitForCalls(path, 2);
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect((await call('GET', `/webhook/${id}/logs`)).body.total).toBe(2);
  });

  it("answers 404 for another account's webhook on every path", async () => {
    const { id } = await createWebhook({ verified: true });
    await call('POST', `/webhook/${id}/test`);
    const logId = ((await call('GET', `/webhook/${id}/logs`)).body.data as { id: string }[])[0]!.id;
    const attempts: [string, string, unknown?][] = [
      ['GET', `/webhook/${id}`],
      ['PATCH', `/webhook/${id}`, { events: [] }],
      ['POST', `/webhook/${id}/test`],
      ['GET', `/webhook/${id}/logs`],
      ['POST', `/webhook/${id}/logs/${logId}/retry`],
      ['DELETE', `/webhook/${id}`],
    ];
    for (const [method, path, body] of attempts) {
      const result = await call(method, path, body, otherKey);
      expect([method, path, result.status, result.body]).toEqual([
        method,
        path,
        404,
        { status: 'failed', error: 'webhook not found' },
      ]);
    }
    expect((await call('GET', '/webhooks', undefined, otherKey)).body.webhooks).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ id })]),
    );
    expect((await call('GET', `/webhook/${id}`)).status).toBe(200);
  });
});

describe('the transaction event', () => {
  it('sends the receipt once per transaction, though execute-and-wait and the receipt job both get it', async () => {
    const { path } = await createWebhook({ verified: true, events: ['transaction'] });
    const signer = owner.connect(laurel.chain!.provider);
    const populated = await signer.populateTransaction({ to: owner.address, value: 1n });
    const executed = await call('POST', '/transactions/execute-and-wait', {
      chain: 'local',
      signed_transaction: await signer.signTransaction(populated),
    });
    expect(executed.body).toMatchObject({ status: 'success' });
    const hash = executed.body.transactionHash as string;

    const [, delivered] = await receiver.waitForCalls(path, 2); // the test call, then the event
    expect(JSON.parse(delivered!.body)).toMatchObject({
      event: 'transaction',
      payload: { _type: 'TransactionReceipt', hash, status: 1, from: owner.address },
    });
    // The receipt job runs too (2 s later) and finds the receipt recorded: no second event.
    await waitUntil(
      'the receipt job done',
      async () => {
        const [row] = await laurel.services.prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM graphile_worker.jobs WHERE key LIKE ${`%${hash}`}`;
        return Number(row!.n) === 0;
      },
      45_000,
    );
    const events = await laurel.services.prisma.webhookEvent.findMany({
      where: {
        accountAddress: owner.address,
        event: 'transaction',
        payload: { path: ['hash'], equals: hash },
      },
    });
    expect(events).toHaveLength(1);
    expect(receiver.calls.filter((c) => c.path === path)).toHaveLength(2);
  });
});

/** The pending jobs of a webhook's deliveries: keyed by the migration's SQL, run by the task of jobs.deliverWebhook. */
async function deliveryJobsOf(webhookId: number): Promise<number> {
  const [row] = await laurel.services.prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM graphile_worker.jobs j
    JOIN webhook_deliveries d ON j.key = laurel_delivery_job_key(d.id)
    WHERE d.webhook_id = ${webhookId} AND j.task_identifier = ${jobs.deliverWebhook.name}`;
  return Number(row!.n);
}

function emitForAccount(
  db: Prisma.TransactionClient,
  accountAddress: string,
  payload: Prisma.InputJsonObject,
) {
  return emitWebhookEvent(db, { accountAddress, event: 'transaction', payload });
}
