/**
 * The client's webhook verification against a real Laurel (its own anvil and worker) calling real
 * HTTPS receivers of the test CA: raw bodies (node:https), fetch-style Requests and an Express app
 * with express.raw; openapi.json's `webhooks` section checked against delivered calls; and the 422
 * of a failed verification stating the challenge's four rules.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Wallet } from 'ethers';
import {
  challengeAnswer,
  expressWebhookHandler,
  Laurel,
  signIn,
  verifyWebhook,
  webhookFetchHandler,
  WebhookVerificationError,
  type LaurelWebhookEvent,
} from '../../packages/client/src/index';
import { createServerCertificate } from '../../src/modules/webhooks/certificates';
import { selfTransfer } from '../helpers/client';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { openApiContract } from '../helpers/openapi-contract';
import { testCa } from '../helpers/test-ca';
import { waitUntil } from '../helpers/wait';
import {
  json,
  startWebhookReceiver,
  type ReceivedCall,
  type ReceiverHandler,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

let laurel: TestLaurel;
let receiver: WebhookReceiver;
let client: Laurel;
let secret: string;
let owner: Wallet;

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([startTestLaurel({ chain: true }), startWebhookReceiver()]);
  owner = laurel.chain!.wallets[3]!;
  client = new Laurel({ url: laurel.url });
  await signIn(client, owner);
  secret = (await client.call(client.api.GET('/v1/webhook/secret'))).webhook_secret;
});

afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

let paths = 0;
const newPath = () => `/client-hook-${++paths}`;

/** A receiver written with the client: verifies each call, answers the challenge, keeps the events. */
function verifyingReceiver(events: LaurelWebhookEvent[], secrets: () => string | string[] = () => secret) {
  const handler: ReceiverHandler = (call, response) =>
    void verifyWebhook(call.body, call.headers, { secret: secrets() }).then(
      (event) => {
        events.push(event);
        if (event.event === 'test') json(response, 200, challengeAnswer(call.headers));
        else response.writeHead(204).end();
      },
      (error: Error) => json(response, 401, { error: error.message }),
    );
  return handler;
}

async function registerAndTest(url: string) {
  const { webhook } = await client.call(client.api.POST('/v1/webhook', { body: { url } }));
  const tested = await client.api.POST('/v1/webhook/{id}/test', {
    params: { path: { id: String(webhook.id) } },
  });
  return { id: webhook.id, tested };
}

const transact = () => selfTransfer(client, owner);

const transactionEvents = (events: LaurelWebhookEvent[]) => events.filter((e) => e.event === 'transaction');

describe('verifying webhook calls with the client', () => {
  const events: LaurelWebhookEvent[] = [];
  const path = newPath();
  let calls: ReceivedCall[];
  let hash: string;

  beforeAll(async () => {
    receiver.route(path, verifyingReceiver(events));
    const { tested } = await registerAndTest(receiver.url(path));
    expect(tested.response.status).toBe(200);
    hash = await transact();
    calls = await receiver.waitForCalls(path, 2);
    // The receiver records a call before its handler has verified it.
    await waitUntil('the transaction call verified', () => transactionEvents(events).length > 0);
  });

  it('verifies the test call and answers its challenge: Laurel activates the webhook', () => {
    expect(events[0]).toEqual({
      event: 'test',
      idempotency_key: expect.stringMatching(/^evt_/),
      payload: null,
    });
  });

  it('verifies a transaction call and returns the typed receipt', () => {
    const [event] = transactionEvents(events);
    expect(event?.payload).toMatchObject({
      _type: 'TransactionReceipt',
      hash,
      status: 1,
      from: owner.address,
    });
  });

  it('verifies x-laurel-signature alone when asked, and fetch-style Requests', async () => {
    const call = calls[1]!;
    await expect(
      verifyWebhook(Buffer.from(call.body), call.headers, { secret, scheme: 'laurel-signature' }),
    ).resolves.toMatchObject({ event: 'transaction' });
    const request = new Request('https://receiver.example/hook', {
      method: 'POST',
      headers: call.headers as Record<string, string>,
      body: call.body,
    });
    const answer = await webhookFetchHandler({ secret }, (event) => {
      expect(event.payload.hash).toBe(hash);
    })(request);
    expect(answer.status).toBe(204);
  });

  it('refuses a changed body, another secret, a stale timestamp and missing headers, naming why', async () => {
    const call = calls[1]!;
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: WebhookVerificationError) => [error.reason, error.message],
      );
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(
      await refusal(verifyWebhook(call.body.replace('"status":1', '"status":0'), call.headers, { secret })),
    ).toEqual([
      'signature_mismatch',
      expect.stringMatching(/no webhook-signature matches the secret: use the current one/),
    ]);
    expect(await refusal(verifyWebhook(call.body, call.headers, { secret: other }))).toEqual([
      'signature_mismatch',
      expect.any(String),
    ]);
    expect(
      await refusal(verifyWebhook(call.body, call.headers, { secret: other, scheme: 'laurel-signature' })),
    ).toEqual(['signature_mismatch', expect.stringMatching(/no x-laurel-signature matches/)]);
    const later = Number(call.headers['webhook-timestamp']) * 1000 + 301_000;
    expect(await refusal(verifyWebhook(call.body, call.headers, { secret, now: () => later }))).toEqual([
      'stale_timestamp',
      expect.stringMatching(/^webhook-timestamp is 301 s from now, more than the 300 s allowed/),
    ]);
    const { 'webhook-signature': _dropped, ...stripped } = call.headers;
    expect(await refusal(verifyWebhook(call.body, stripped, { secret }))).toEqual([
      'missing_signature',
      expect.stringMatching(/no webhook-id, webhook-timestamp and webhook-signature/),
    ]);
  });

  it('matches openapi.json’s webhooks section: both calls, their headers and bodies as delivered', () => {
    const contract = openApiContract();
    const { webhooks } = contract.document as unknown as {
      webhooks: Record<string, { post: { parameters: { name: string; required: boolean }[] } }>;
    };
    expect(Object.keys(webhooks).sort()).toEqual(['test', 'transaction']);
    for (const [index, name] of [
      [0, 'test'],
      [1, 'transaction'],
    ] as const) {
      const call = calls[index]!;
      const base = ['webhooks', name, 'post'];
      const parameters = webhooks[name]!.post.parameters;
      expect(parameters.map((p) => p.name).sort()).toEqual([
        'content-type',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
        'x-laurel-signature',
      ]);
      parameters.forEach((parameter, i) => {
        const validate = contract.validator([...base, 'parameters', String(i), 'schema']);
        expect({
          header: parameter.name,
          valid: validate(call.headers[parameter.name]),
          errors: validate.errors,
        }).toEqual({
          header: parameter.name,
          valid: true,
          errors: null,
        });
      });
      const body = contract.validator([...base, 'requestBody', 'content', 'application/json', 'schema']);
      expect({ valid: body(JSON.parse(call.body)), errors: body.errors }).toEqual({
        valid: true,
        errors: null,
      });
    }
    const answer = contract.validator([
      'webhooks',
      'test',
      'post',
      'responses',
      '200',
      'content',
      'application/json',
      'schema',
    ]);
    expect(answer(challengeAnswer(calls[0]!.headers))).toBe(true);
    expect(answer({ challenge: 'x', extra: 1 })).toBe(false);
  });
});

describe('a secret rotation with an overlap', () => {
  it('verifies with the old secret alone, and with both, while the window lasts', async () => {
    const events: LaurelWebhookEvent[] = [];
    const path = newPath();
    const old = secret;
    receiver.route(
      path,
      verifyingReceiver(events, () => [secret, old]),
    );
    expect((await registerAndTest(receiver.url(path))).tested.response.status).toBe(200);
    secret = (await client.call(client.api.POST('/v1/webhook/secret', { body: { overlap_seconds: 600 } })))
      .webhook_secret;
    const hash = await transact();
    const [, call] = await receiver.waitForCalls(path, 2);
    // The receiver records a call before its handler has verified it.
    await waitUntil('the transaction call verified with the old secret', () =>
      transactionEvents(events).some((event) => event.payload.hash === hash),
    );
    await expect(verifyWebhook(call!.body, call!.headers, { secret: old })).resolves.toMatchObject({
      event: 'transaction',
    });
    // x-laurel-signature has one value, the new secret's.
    await expect(
      verifyWebhook(call!.body, call!.headers, { secret: old, scheme: 'laurel-signature' }),
    ).rejects.toThrow(WebhookVerificationError);
  });
});

describe('an Express receiver (express.raw)', () => {
  it('answers the challenge, hands over the transaction event, and says when the body was parsed', async () => {
    const { cert, key } = await createServerCertificate(testCa());
    const received: string[] = [];
    const app = express();
    app.post(
      '/hook',
      express.raw({ type: 'application/json' }),
      expressWebhookHandler({ secret }, (event) => void received.push(event.payload.hash)),
    );
    app.post(
      '/parsed',
      express.json(),
      expressWebhookHandler({ secret }, () => undefined),
    );
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: error.message });
    });
    const server = createServer({ cert, key }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await registerAndTest(`${base}/hook`)).tested.response.status).toBe(200);
      const hash = await transact();
      await waitUntil('the transaction event at the Express app', () => received.includes(hash));

      const parsed = await registerAndTest(`${base}/parsed`);
      expect(parsed.tested.response.status).toBe(422);
      const direct = await fetch(`${base}/parsed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(await direct.json()).toEqual({
        error:
          "the webhook route's body is already parsed: mount express.raw({ type: 'application/json' }) on it, before any express.json()",
      });
      expect(parsed.tested.error).toMatchObject({
        error: expect.stringMatching(/^receiver answered HTTP 500 \(breaks rule 2\)/),
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a failed verification', () => {
  it('states the four rules at once and which one broke, in the 422 and its log entry', async () => {
    const path = newPath();
    receiver.route(path, (call, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(String(call.headers['x-laurel-signature'])),
    );
    const { id, tested } = await registerAndTest(receiver.url(path));
    expect(tested.response.status).toBe(422);
    const error = (tested.error as { error: string }).error;
    expect(error).toBe(
      'challenge failed: content-type is text/plain, not application/json (breaks rule 3). ' +
        'A test call verifies the webhook when the answer meets all four rules: ' +
        '1. the url has a valid certificate from a CA Laurel trusts; 2. the status is 2xx; ' +
        '3. the content-type is application/json; 4. the body is JSON with one field, "challenge", ' +
        "whose value is the request's x-laurel-signature header.",
    );
    const logs = await client.call(
      client.api.GET('/v1/webhook/{id}/logs', { params: { path: { id: String(id) } } }),
    );
    expect(logs.data[0]).toMatchObject({ event: 'test', successful: false, error_message: error });
  });

  it('names rule 1 for a certificate Laurel does not trust', async () => {
    const selfSigned = await startWebhookReceiver({ certificate: 'self-signed' });
    try {
      const { tested } = await registerAndTest(selfSigned.url('/hook'));
      expect((tested.error as { error: string }).error).toMatch(
        /^certificate error: .* \(breaks rule 1\)\. A test call verifies the webhook when the answer meets all four rules: 1\./,
      );
    } finally {
      await selfSigned.stop();
    }
  });
});
