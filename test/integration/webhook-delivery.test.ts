/**
 * The webhook delivery layer against a real HTTPS receiver (its certificate from the test CA,
 * trusted through NODE_EXTRA_CA_CERTS), a real PostgreSQL and a running graphile-worker:
 * verification, signatures (checked with the `standardwebhooks` package), redirects, SSRF, the
 * timeout, retries and deactivation.
 */
import { createHmac } from 'node:crypto';
import { Wallet } from 'ethers';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { Prisma } from '../../src/db/prisma';
import { jobs } from '../../src/jobs/jobs';
import { enqueueJob } from '../../src/jobs/queue';
import { enqueueLapsedFirstAttempts } from '../../src/jobs/tasks/webhook_deliveries__recover';
import { FirstAttempts } from '../../src/modules/webhooks/webhook-first-attempts';
import { emitWebhookEvent, webhookEventEmission } from '../../src/modules/webhooks/webhooks.repository';
import { webhooksModule } from '../../src/modules/webhooks/webhooks.module';
import { WebhookHttpClient } from '../../src/modules/webhooks/webhook-http-client';
import { restrictDatabase } from '../helpers/database';
import { loggerInto } from '../helpers/logs';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import {
  answerChallenge,
  failTimes,
  json,
  neverAnswer,
  redirectTo,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

let laurel: TestLaurel;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([
    startTestLaurel({ env: { WEBHOOK_RETRY_BASE_MS: '20' } }),
    startWebhookReceiver(),
  ]);
});

afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

let paths = 0;
/** A path of its own for each webhook, so calls of different tests never mix. */
const newPath = () => `/hook-${++paths}`;

async function newAccount(): Promise<string> {
  const { address } = Wallet.createRandom();
  await laurel.services.prisma.account.create({ data: { address } });
  return address;
}

async function newWebhook(accountAddress: string, url: string, disabled = false) {
  return laurel.services.prisma.webhook.create({ data: { accountAddress, url, events: [], disabled } });
}

function emit(accountAddress: string, payload: Prisma.InputJsonObject = { hello: 'world' }) {
  return laurel.services.prisma.$transaction((db) =>
    emitWebhookEvent(db, { accountAddress, event: 'transaction', payload }),
  );
}

const deliverer = () => laurel.modules.serviceOf(webhooksModule).deliverer;

describe('verification (the test call)', () => {
  it('activates a webhook whose receiver answers the challenge, and logs the attempt', async () => {
    const path = newPath();
    receiver.route(path, answerChallenge());
    const webhook = await newWebhook(await newAccount(), receiver.url(path), true);
    const outcome = (await deliverer().verify(webhook.id))!;
    expect(outcome).toMatchObject({ activated: true, reason: null });
    const [call] = await receiver.waitForCalls(path, 1);
    expect(JSON.parse(call!.body)).toEqual({
      event: 'test',
      idempotency_key: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      payload: null,
    });
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.headers['user-agent']).toMatch(/^Laurel-Webhooks\/\d+\.\d+\.\d+$/);
    const stored = await laurel.services.prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
    // Active now; disabled_at keeps when it was last disabled (here: created disabled).
    expect(stored).toMatchObject({ disabled: false, disabledAt: stored.createdAt });
    expect(outcome.log).toMatchObject({ successful: true, responseCode: 200, attempt: 1 });
  });

  const refusals: [string, (path: string) => void, RegExp][] = [
    ['a non-2xx status', (path) => receiver.route(path, (_c, r) => json(r, 404, {})), /HTTP 404/],
    [
      'a content-type other than application/json',
      (path) =>
        receiver.route(path, (call, r) =>
          r.writeHead(200, { 'content-type': 'text/plain' }).end(String(call.headers['x-laurel-signature'])),
        ),
      /content-type is text\/plain/,
    ],
    [
      'a wrong challenge value',
      (path) => receiver.route(path, (_c, r) => json(r, 200, { challenge: 'nope' })),
      /exactly \{"challenge"/,
    ],
    [
      'an extra field beside the challenge',
      (path) =>
        receiver.route(path, (call, r) =>
          json(r, 200, { challenge: call.headers['x-laurel-signature'], extra: 1 }),
        ),
      /exactly \{"challenge"/,
    ],
    [
      'a body that is not JSON',
      (path) =>
        receiver.route(path, (_c, r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{')),
      /not JSON/,
    ],
  ];
  it.each(refusals)('fails on %s, leaving the webhook disabled', async (_case, setUp, reason) => {
    const path = newPath();
    setUp(path);
    const webhook = await newWebhook(await newAccount(), receiver.url(path), true);
    const outcome = (await deliverer().verify(webhook.id))!;
    expect(outcome.activated).toBe(false);
    expect(outcome.reason).toMatch(reason);
    expect(outcome.log).toMatchObject({ successful: false, errorMessage: outcome.reason });
    const stored = await laurel.services.prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(stored.disabled).toBe(true);
  });

  it.each(['expired', 'self-signed'] as const)('fails on a receiver with a %s certificate', async (kind) => {
    const bad = await startWebhookReceiver({ certificate: kind });
    try {
      bad.route('/hook', answerChallenge());
      const webhook = await newWebhook(await newAccount(), bad.url('/hook'), true);
      const outcome = (await deliverer().verify(webhook.id))!;
      expect(outcome.activated).toBe(false);
      expect(outcome.reason).toMatch(/^certificate error: (CERT_HAS_EXPIRED|DEPTH_ZERO_SELF_SIGNED_CERT)/);
      expect(bad.calls).toHaveLength(0);
    } finally {
      await bad.stop();
    }
  });

  it('fails on a receiver that does not answer within 5 s', async () => {
    const path = newPath();
    receiver.route(path, neverAnswer);
    const webhook = await newWebhook(await newAccount(), receiver.url(path), true);
    const outcome = (await deliverer().verify(webhook.id))!;
    // The reason first, then the rule it breaks and the whole rule (webhook-events.ts challengeRules).
    expect(outcome.reason).toMatch(
      /^timeout: no answer within 5000 ms \(breaks rule 2\)\. A test call verifies/,
    );
    expect(outcome.log.durationMs).toBeGreaterThanOrEqual(5000);
    expect(outcome.log.durationMs).toBeLessThan(15_000); // the one deadline, even on a loaded machine
  });
});

describe('event deliveries', () => {
  it('signs each call with both signatures, stable idempotency key, and rotation changes them', async () => {
    const path = newPath();
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    expect(await emit(account, { n: 1 })).toBe(1);
    const [first] = await receiver.waitForCalls(path, 1);
    const secret = await laurel.modules.serviceOf(webhooksModule).secrets.get(account);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const body = JSON.parse(first!.body) as { event: string; idempotency_key: string; payload: unknown };
    expect(body).toEqual({ event: 'transaction', idempotency_key: expect.any(String), payload: { n: 1 } });
    expect(first!.headers['x-laurel-signature']).toBe(
      createHmac('sha256', secret).update(first!.body).digest('base64'),
    );
    expect(first!.headers['webhook-id']).toBe(body.idempotency_key);
    // Any Standard Webhooks receiver accepts the call (throws otherwise).
    expect(new StandardWebhook(secret).verify(first!.body, first!.headers as Record<string, string>)).toEqual(
      body,
    );

    const { secret: rotated } = await laurel.modules.serviceOf(webhooksModule).secrets.rotate(account);
    expect(rotated).not.toBe(secret);
    await emit(account, { n: 2 });
    const [, second] = await receiver.waitForCalls(path, 2);
    expect(second!.headers['x-laurel-signature']).toBe(
      createHmac('sha256', rotated).update(second!.body).digest('base64'),
    );
    expect(() =>
      new StandardWebhook(secret).verify(second!.body, second!.headers as Record<string, string>),
    ).toThrow();
    expect(
      new StandardWebhook(rotated).verify(second!.body, second!.headers as Record<string, string>),
    ).toEqual(JSON.parse(second!.body));
  });

  it('retries a failing receiver with the same idempotency key until it answers 2xx', async () => {
    const path = newPath();
    receiver.route(
      path,
      failTimes(2, (_c, r) => json(r, 200, {}), 503, { 'retry-after': '0' }),
    );
    const account = await newAccount();
    const webhook = await newWebhook(account, receiver.url(path));
    await emit(account);
    const calls = await receiver.waitForCalls(path, 3, 45_000);
    expect(new Set(calls.map((call) => call.headers['webhook-id'])).size).toBe(1);
    const logs = await waitUntil(
      'three logged attempts',
      async () => {
        const rows = await laurel.services.prisma.webhookLog.findMany({
          where: { webhookId: webhook.id },
          orderBy: { attempt: 'asc' },
        });
        return rows.length === 3 && rows;
      },
      45_000,
    );
    expect(logs.map((log) => [log.attempt, log.successful, log.responseCode])).toEqual([
      [1, false, 503],
      [2, false, 503],
      [3, true, 200],
    ]);
    const stored = await laurel.services.prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(stored.disabled).toBe(false);
  });

  it('signs the retry of a delivery recorded before a rotation with the secrets current when it is sent', async () => {
    const path = newPath();
    const account = await newAccount();
    const secrets = laurel.modules.serviceOf(webhooksModule).secrets;
    const old = await secrets.get(account);
    let rotated: Promise<string> | undefined;
    // The first call rotates the secret (keeping the old one for an hour), then fails: the retry
    // comes after the rotation.
    receiver.route(path, (_call, response) => {
      if (rotated) return json(response, 200, {});
      rotated = secrets.rotate(account, 3600).then(({ secret }) => secret);
      void rotated.then(() => response.writeHead(503, { 'retry-after': '0' }).end('rotating'));
    });
    await newWebhook(account, receiver.url(path));
    await emit(account, { rotation: true });
    const [first, retry] = await receiver.waitForCalls(path, 2, 45_000);
    const secret = await rotated!;
    expect(first!.headers['webhook-id']).toBe(retry!.headers['webhook-id']);
    expect(String(first!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new StandardWebhook(old).verify(first!.body, first!.headers as Record<string, string>)).toEqual(
      JSON.parse(first!.body),
    );
    expect(String(retry!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const held of [secret, old]) {
      expect(new StandardWebhook(held).verify(retry!.body, retry!.headers as Record<string, string>)).toEqual(
        JSON.parse(retry!.body),
      );
    }
    expect(retry!.headers['x-laurel-signature']).toBe(
      createHmac('sha256', secret).update(retry!.body).digest('base64'),
    );
  });

  it('records each attempt of many concurrent deliveries with its own outcome (attempts share statements)', async () => {
    const [healthy, flaky] = [newPath(), newPath()];
    receiver.route(
      flaky,
      failTimes(12, (_c, r) => json(r, 200, {}), 503, { 'retry-after': '0' }),
    );
    const account = await newAccount();
    const webhooks = [
      await newWebhook(account, receiver.url(healthy)),
      await newWebhook(account, receiver.url(flaky)),
    ];
    // Visible at once, so the worker's attempts run side by side.
    await laurel.services.prisma.$transaction(async (db) => {
      for (let n = 0; n < 12; n++)
        await emitWebhookEvent(db, { accountAddress: account, event: 'transaction', payload: { n } });
    });
    const where = { webhookId: { in: webhooks.map((webhook) => webhook.id) } };
    const deliveries = await waitUntil(
      'all 24 deliveries succeeded',
      async () => {
        const rows = await laurel.services.prisma.webhookDelivery.findMany({
          where,
          include: { logs: true },
        });
        return rows.length === 24 && rows.every((row) => row.status === 'succeeded') && rows;
      },
      45_000,
    );
    for (const delivery of deliveries) {
      const attempts = delivery.logs
        .map((log) => [log.attempt, log.successful])
        .sort(([a], [b]) => Number(a) - Number(b));
      // Attempts 1..n, one log each, only the last one successful.
      expect(attempts).toEqual(
        Array.from({ length: delivery.attempts }, (_, i) => [i + 1, i + 1 === delivery.attempts]),
      );
    }
    const logs = deliveries.flatMap((delivery) => delivery.logs);
    expect(logs.filter((log) => log.webhookId === webhooks[0]!.id)).toHaveLength(12);
    expect(receiver.calls.filter((call) => call.path === healthy)).toHaveLength(12);
    expect(receiver.calls.filter((call) => call.path === flaky)).toHaveLength(
      logs.filter((log) => log.webhookId === webhooks[1]!.id).length,
    );
  });

  it('deactivates the webhook after the 5th failed attempt, and sends nothing more to it', async () => {
    const path = newPath();
    receiver.route(path, (_c, r) => json(r, 500, { down: true }));
    const account = await newAccount();
    const webhook = await newWebhook(account, receiver.url(path));
    await emit(account);
    const deactivated = await waitUntil(
      'the webhook deactivated',
      async () => {
        const row = await laurel.services.prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
        return row.disabled && row;
      },
      45_000,
    );
    expect(deactivated.disabledAt).toBeInstanceOf(Date);
    const logs = await laurel.services.prisma.webhookLog.findMany({ where: { webhookId: webhook.id } });
    expect(logs.map((log) => log.attempt).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(logs.every((log) => !log.successful && log.responseCode === 500)).toBe(true);
    expect(receiver.calls.filter((call) => call.path === path)).toHaveLength(5);
    // A deactivated webhook gets no delivery for new events.
    expect(await emit(account)).toBe(0);
  });
});

describe('first attempts by the process that recorded the event', () => {
  /** Records an event whose deliveries' first attempts are left to this process for `leaseSeconds`. */
  async function emitForFirstAttempt(accountAddress: string, leaseSeconds: number): Promise<bigint[]> {
    const [row] = await laurel.services.prisma.$queryRaw<{ deliveries: string[] }[]>`
      SELECT ${webhookEventEmission({
        accountAddress,
        event: 'transaction',
        payload: { first: true },
        requestId: null,
        firstAttemptSeconds: leaseSeconds,
      })}::text[] AS deliveries`;
    return row!.deliveries.map(BigInt);
  }

  const firstAttempts = () => laurel.modules.serviceOf(webhooksModule).firstAttempts;
  const deliveryJobs = async (id: bigint) => {
    const [row] = await laurel.services.prisma.$queryRaw<{ jobs: number }[]>`
      SELECT count(*)::int AS jobs FROM graphile_worker.jobs WHERE key = laurel_delivery_job_key(${id})`;
    return row!.jobs;
  };
  const delivery = (id: bigint) =>
    laurel.services.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });

  it('are made without a job, and a delivered one ends its lease', async () => {
    const path = newPath();
    receiver.route(path, (_call, response) => json(response, 200, {}));
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    const [id] = await emitForFirstAttempt(account, 30);
    expect(await deliveryJobs(id!)).toBe(0);
    expect((await delivery(id!)).firstAttemptUntil!.getTime()).toBeGreaterThan(Date.now());

    firstAttempts().start([id!]);
    const [call] = await receiver.waitForCalls(path, 1);
    expect(JSON.parse(call!.body)).toMatchObject({ event: 'transaction', payload: { first: true } });
    const delivered = await waitUntil('the attempt recorded', async () => {
      const row = await delivery(id!);
      return row.status === 'succeeded' && row;
    });
    expect(delivered).toMatchObject({ attempts: 1, firstAttemptUntil: null });
    expect(await deliveryJobs(id!)).toBe(0);
  });

  it('a failed one is retried by its job, with the same idempotency key', async () => {
    const path = newPath();
    receiver.route(
      path,
      failTimes(1, (_c, r) => json(r, 200, {}), 503, { 'retry-after': '0' }),
    );
    const account = await newAccount();
    const webhook = await newWebhook(account, receiver.url(path));
    const [id] = await emitForFirstAttempt(account, 30);
    firstAttempts().start([id!]);
    const [first, retried] = await receiver.waitForCalls(path, 2);
    expect(retried!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const logs = await waitUntil('two logged attempts', async () => {
      const rows = await laurel.services.prisma.webhookLog.findMany({
        where: { webhookId: webhook.id },
        orderBy: { attempt: 'asc' },
      });
      return rows.length === 2 && rows;
    });
    expect(logs.map((log) => [log.attempt, log.successful, log.responseCode])).toEqual([
      [1, false, 503],
      [2, true, 200],
    ]);
    expect(await delivery(id!)).toMatchObject({ status: 'succeeded', firstAttemptUntil: null });
  });

  it('past its lease, the attempt is not made by the process but by the job webhook_deliveries__recover enqueues', async () => {
    const path = newPath();
    receiver.route(path, (_call, response) => json(response, 200, {}));
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    const [id] = await emitForFirstAttempt(account, 0.05);
    await waitUntil(
      'the lease to run out',
      async () => (await delivery(id!)).firstAttemptUntil! < new Date(),
    );

    // The process that held it comes too late: it sends nothing.
    await laurel.modules.serviceOf(webhooksModule).deliverer.firstAttempt(id!);
    expect(receiver.calls.filter((call) => call.path === path)).toHaveLength(0);
    expect(await delivery(id!)).toMatchObject({ status: 'pending', attempts: 0 });

    const client = await laurel.services.pool.connect();
    try {
      // (The worker's own recover job may have taken it first: either enqueues it once.)
      await enqueueLapsedFirstAttempts(client);
      expect((await enqueueLapsedFirstAttempts(client)).enqueued).toBe(0);
    } finally {
      client.release();
    }
    await receiver.waitForCalls(path, 1);
    await waitUntil(
      'the job to record the attempt',
      async () => (await delivery(id!)).status === 'succeeded',
    );
    expect(await delivery(id!)).toMatchObject({ attempts: 1, firstAttemptUntil: null });
  });

  it('held by a process that died, is made by a job when its lease ends, not at the crontab’s next minute', async () => {
    const path = newPath();
    receiver.route(path, (_call, response) => json(response, 200, {}));
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    // Recorded with a lease, and no first attempt made: its process died.
    const [id] = await emitForFirstAttempt(account, 6);
    const leaseEnds = (await delivery(id!)).firstAttemptUntil!;

    // A recover run within the lease (as at the start of the worker that follows the dead process)
    // leaves it held, and runs again a second after the lease ends (or sooner, for a lease that ends first).
    await enqueueJob(
      laurel.services.prisma,
      jobs.recoverDeliveries,
      {},
      { jobKey: jobs.recoverDeliveries.name },
    );
    await waitUntil('the next recover run due by the end of the lease', async () => {
      const [row] = await laurel.services.prisma.$queryRaw<{ due: boolean }[]>`
        SELECT bool_or(run_at <= ${new Date(leaseEnds.getTime() + 1000)}) AS due FROM graphile_worker.jobs
         WHERE key = ${jobs.recoverDeliveries.name} AND locked_at IS NULL`;
      return row?.due === true;
    });
    expect(await delivery(id!)).toMatchObject({ status: 'pending', attempts: 0 });
    await receiver.waitForCalls(path, 1);
    const delivered = await waitUntil('the job to record the attempt', async () => {
      const row = await delivery(id!);
      return row.status === 'succeeded' && row;
    });
    expect(delivered).toMatchObject({ attempts: 1, firstAttemptUntil: null });
    expect(delivered.updatedAt.getTime()).toBeGreaterThanOrEqual(leaseEnds.getTime());
  });

  it('one that failed before its record (the database refused it) is made again within its lease', async () => {
    const path = newPath();
    receiver.route(path, (_call, response) => json(response, 200, {}));
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    const [id] = await emitForFirstAttempt(account, 30);
    const leaseEnds = (await delivery(id!)).firstAttemptUntil!;
    const lines: string[] = [];
    const log = loggerInto('warn', lines);
    const attempts = new FirstAttempts(deliverer(), { limit: 1, leaseSeconds: 30, log });

    // The database takes no connection for a moment, and Laurel's are cut: the attempt cannot load
    // its delivery. Once it is back, the attempt is made again, before its lease runs out.
    const reopen = await restrictDatabase(laurel.databaseUrl, 'closed');
    try {
      attempts.start([id!]);
      await waitUntil('the attempt to fail and be tried again', () =>
        lines.some((line) => line.includes('failed before it was recorded; trying again')),
      );
    } finally {
      await reopen();
    }
    const [call] = await receiver.waitForCalls(path, 1);
    expect(JSON.parse(call!.body)).toMatchObject({ event: 'transaction', payload: { first: true } });
    await attempts.stop();
    const delivered = await delivery(id!);
    expect(delivered).toMatchObject({ status: 'succeeded', attempts: 1, firstAttemptUntil: null });
    expect(delivered.updatedAt.getTime()).toBeLessThan(leaseEnds.getTime());
    expect(lines.some((line) => line.includes('its job will make it'))).toBe(false);
  });

  it('one whose database stays away is tried again at least once a second, to follow soon after it is back', async () => {
    const path = newPath();
    receiver.route(path, (_call, response) => json(response, 200, {}));
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    const [id] = await emitForFirstAttempt(account, 30);
    const lines: string[] = [];
    const attempts = new FirstAttempts(deliverer(), {
      limit: 1,
      leaseSeconds: 30,
      log: loggerInto('warn', lines),
    });
    const tries = () =>
      lines.filter((line) => line.includes('failed before it was recorded; trying again')).length;
    const givenUp = () => lines.some((line) => line.includes('its job will make it'));

    // Seven tries within the first half of the lease (15 s): waits doubling from 250 ms without a
    // bound would reach 8 s by the sixth, and leave the delivery to its job.
    const reopen = await restrictDatabase(laurel.databaseUrl, 'closed');
    try {
      attempts.start([id!]);
      await waitUntil('seven tries, or the attempt given up', () => tries() >= 7 || givenUp(), 20_000);
    } finally {
      await reopen();
    }
    expect(givenUp()).toBe(false);
    await receiver.waitForCalls(path, 1);
    await attempts.stop();
    expect(await delivery(id!)).toMatchObject({ status: 'succeeded', attempts: 1, firstAttemptUntil: null });
  });

  it('stay within their limit, none start once stopping, and stop() waits for those under way', async () => {
    expect(
      new FirstAttempts(deliverer(), { limit: 0, leaseSeconds: 30, log: laurel.services.log }).leaseSeconds(),
    ).toBeNull();
    const limited = new FirstAttempts(deliverer(), { limit: 1, leaseSeconds: 30, log: laurel.services.log });
    expect(limited.leaseSeconds()).toBe(30);

    const path = newPath();
    const held: (() => void)[] = [];
    receiver.route(path, (_call, response) => held.push(() => json(response, 200, {})));
    const account = await newAccount();
    await newWebhook(account, receiver.url(path));
    const [id] = await emitForFirstAttempt(account, 30);
    limited.start([id!]);
    await receiver.waitForCalls(path, 1);
    expect(limited.leaseSeconds()).toBeNull();

    let stopped = false;
    const stopping = limited.stop().then(() => (stopped = true));
    expect(limited.leaseSeconds()).toBeNull();
    // The call is still held: stop() has not returned, and the delivery is not recorded yet.
    expect(await delivery(id!)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(stopped).toBe(false);
    held[0]!();
    await stopping;
    expect(await delivery(id!)).toMatchObject({ status: 'succeeded', attempts: 1, firstAttemptUntil: null });
  });
});

describe('the HTTPS client', () => {
  const userAgent = 'Laurel-Webhooks/test';

  it('follows 3 redirects, and fails the call on a 4th', async () => {
    const client = await WebhookHttpClient.create({ allowPrivateNetworks: true, userAgent });
    try {
      const base = newPath();
      receiver.route(`${base}/end`, (call, r) => json(r, 200, { got: JSON.parse(call.body) }));
      for (let hop = 1; hop <= 4; hop++) {
        receiver.route(
          `${base}/${hop}`,
          redirectTo(hop === 1 ? `${base}/end` : receiver.url(`${base}/${hop - 1}`)),
        );
      }
      const three = await client.post(receiver.url(`${base}/3`), '{"a":1}', {});
      expect(three).toMatchObject({ successful: true, responseCode: 200, responseBody: '{"got":{"a":1}}' });
      const four = await client.post(receiver.url(`${base}/4`), '{"a":1}', {});
      expect(four).toMatchObject({ successful: false, errorMessage: 'too many redirects: more than 3' });
    } finally {
      client.destroy();
    }
  });

  it('refuses a redirect to a private address when private networks are not allowed', async () => {
    // 127.0.0.1 stands for a public receiver here; the redirect goes to another loopback address.
    const client = await WebhookHttpClient.create({
      allowPrivateNetworks: false,
      allowedAddresses: ['127.0.0.1'],
      userAgent,
    });
    const loopback = await WebhookHttpClient.create({ allowPrivateNetworks: false, userAgent });
    try {
      const path = newPath();
      receiver.route(path, redirectTo(`https://127.0.0.2:${receiver.port}/internal`));
      const result = await client.post(receiver.url(path), '{}', {});
      expect(result.successful).toBe(false);
      expect(result.errorMessage).toMatch(/^refused address: .*127\.0\.0\.2.*private IP address/);
      // DNS is checked too: `localhost` resolves to loopback.
      const byName = await loopback.post(`https://localhost:${receiver.port}${path}`, '{}', {});
      expect(byName.errorMessage).toMatch(/^refused address: .*private IP address/);
      expect(receiver.calls.filter((call) => call.path === '/internal')).toHaveLength(0);
    } finally {
      client.destroy();
      loopback.destroy();
    }
  });

  it('refuses plain HTTP, first hop or redirect', async () => {
    const client = await WebhookHttpClient.create({ allowPrivateNetworks: true, userAgent });
    try {
      const path = newPath();
      receiver.route(path, redirectTo(`http://127.0.0.1:${receiver.port}/plain`));
      expect((await client.post(receiver.url(path), '{}', {})).errorMessage).toMatch(
        /^only HTTPS urls allowed/,
      );
      expect((await client.post('http://127.0.0.1:1/', '{}', {})).errorMessage).toMatch(
        /^only HTTPS urls allowed/,
      );
    } finally {
      client.destroy();
    }
  });

  it('reuses its TLS connection for calls one after another', async () => {
    const client = await WebhookHttpClient.create({ allowPrivateNetworks: true, userAgent });
    try {
      const path = newPath();
      const before = receiver.connections;
      for (let call = 0; call < 10; call++) {
        expect(await client.post(receiver.url(path), '{}', {})).toMatchObject({ successful: true });
      }
      expect(receiver.connections - before).toBe(1);
    } finally {
      client.destroy();
    }
  });

  it('fails a call whose body is still arriving when its deadline passes', async () => {
    const client = await WebhookHttpClient.create({ allowPrivateNetworks: true, userAgent, timeoutMs: 300 });
    try {
      const path = newPath();
      receiver.route(
        path,
        (_c, r) => void r.writeHead(200, { 'content-type': 'application/json' }).write('{'),
      );
      const result = await client.post(receiver.url(path), '{}', {});
      expect(result).toMatchObject({ successful: false, errorMessage: 'timeout: no answer within 300 ms' });
      expect(result.durationMs).toBeLessThan(3000);
    } finally {
      client.destroy();
    }
  });

  it('keeps only the start of a large response body', async () => {
    const client = await WebhookHttpClient.create({ allowPrivateNetworks: true, userAgent });
    try {
      const path = newPath();
      receiver.route(path, (_c, r) => r.writeHead(500).end('x'.repeat(1024 * 1024)));
      const result = await client.post(receiver.url(path), '{}', {});
      expect(result.responseCode).toBe(500);
      expect(result.responseBody).toHaveLength(16 * 1024);
    } finally {
      client.destroy();
    }
  });
});
