/**
 * openapi.json's `webhooks` section (OpenAPI 3.1): the `transaction` and `test` calls Laurel makes
 * to a receiver, from the constants that make them (the events, the signature rules, the challenge's
 * rules, the call limits), so the published contract and the calls cannot drift apart.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { challengeRules, SUBSCRIBABLE_EVENTS, TEST_EVENT } from '../modules/webhooks/webhook-events';
import { WEBHOOK_CALL_TIMEOUT_MS, WEBHOOK_MAX_REDIRECTS } from '../modules/webhooks/webhook-http-client';
import { WEBHOOK_MAX_ATTEMPTS } from '../modules/webhooks/webhook-retry-schedule';
import '../validation';

const BASE64_SHA256 = '[A-Za-z0-9+/]{43}=';

function callHeaders(signatureHeader: string) {
  return z.object({
    'content-type': z.literal('application/json'),
    'user-agent': z
      .string()
      .regex(/^Laurel-Webhooks\//)
      .openapi({ description: "`Laurel-Webhooks/<version>`: the Laurel's version" }),
    [signatureHeader]: z
      .string()
      .regex(new RegExp(`^${BASE64_SHA256}$`))
      .openapi({
        description: `Base64 HMAC-SHA256 of the raw body, keyed with the account's webhook secret string exactly as shown (\`whsec_…\`, GET /v1/webhook/secret). The name is the Laurel's WEBHOOK_SIGNATURE_HEADER (${signatureHeader} here). One value: during a rotation's overlap, the new secret's. It has no timestamp: prefer webhook-signature, which refuses replays.`,
      }),
    'webhook-id': z
      .string()
      .regex(/^evt_[0-9a-f]{32}$/)
      .openapi({
        description: 'Standard Webhooks: the event’s idempotency key (the body’s `idempotency_key`)',
      }),
    'webhook-timestamp': z.string().regex(/^\d+$/).openapi({
      description:
        'Standard Webhooks: when the call was signed, Unix seconds. Refuse a call too far from now (replays).',
    }),
    'webhook-signature': z
      .string()
      .regex(new RegExp(`^v1,${BASE64_SHA256}( v1,${BASE64_SHA256})*$`))
      .openapi({
        description:
          'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the base64-decoded part of the `whsec_` secret. During a rotation’s overlap one per secret, space-separated, the new one first: a call verifies when any matches a secret the receiver holds. Any Standard Webhooks library verifies it (npm `standardwebhooks`; `verifyWebhook` of @laurel/client).',
      }),
  });
}

/**
 * A call's request: its headers, and its body `{event, idempotency_key, payload}` as JSON Schema:
 * `payload` is required (null for `test`), which a zod `unknown` standing for the receipt's `$ref`
 * would make optional. Inline, not a named component: zod-to-openapi 7 writes the components of
 * `paths` only.
 */
function callRequest(
  signatureHeader: string,
  event: string,
  payload: Record<string, unknown>,
  description: string,
) {
  const schema = z.unknown().openapi({
    type: 'object',
    description,
    properties: {
      event: { const: event },
      idempotency_key: {
        type: 'string',
        description: 'The same for every attempt of the event: a receiver ignores one it has processed',
      },
      payload,
    },
    required: ['event', 'idempotency_key', 'payload'],
  });
  return {
    headers: callHeaders(signatureHeader),
    body: { required: true, content: { 'application/json': { schema } } },
  };
}

/** Registers the `transaction` and `test` calls; `receipt` is the receipt's JSON Schema (a `$ref`). */
export function registerWebhookCalls(
  registry: OpenAPIRegistry,
  options: { receipt: Record<string, unknown>; signatureHeader: string },
): void {
  const { signatureHeader } = options;
  const delivery = `POSTed to every active webhook of the account subscribed to the event, with a ${WEBHOOK_CALL_TIMEOUT_MS / 1000} s timeout and at most ${WEBHOOK_MAX_REDIRECTS} redirects, from Laurel's HTTPS client (the url needs a certificate from a CA Laurel trusts). A call answered otherwise than 2xx is retried with exponential backoff, ${WEBHOOK_MAX_ATTEMPTS} attempts in all; when all fail the webhook is deactivated (POST /v1/webhook/{id}/test re-activates it). Each attempt is in GET /v1/webhook/{id}/logs. Verify the signature on the raw body before parsing it.`;
  const [transaction] = SUBSCRIBABLE_EVENTS;
  registry.registerWebhook({
    method: 'post',
    path: transaction,
    operationId: 'transactionWebhookCall',
    tags: ['webhooks'],
    summary: 'A transaction of the account has its receipt',
    description: `Sent once per receipt, when the transaction has its chain's confirmations (again, with a new idempotency key, if a reorganisation replaced its block and it is mined again). ${delivery}`,
    request: callRequest(
      signatureHeader,
      transaction,
      options.receipt,
      'The `transaction` call’s body: `payload` is the receipt',
    ),
    responses: {
      '2XX': { description: 'Received: any 2xx ends the delivery (the body is not read)' },
      default: { description: 'Anything else (or no answer) fails the attempt: it is retried' },
    },
  });
  registry.registerWebhook({
    method: 'post',
    path: TEST_EVENT,
    operationId: 'testWebhookCall',
    tags: ['webhooks'],
    summary: 'The verification challenge (POST /v1/webhook/{id}/test)',
    description: `Sent to the one webhook being verified or re-activated, signed with the current secret alone, not retried. ${challengeRules(signatureHeader)} Otherwise POST /v1/webhook/{id}/test answers 422 with the reason, the rule it breaks and these rules, and the webhook stays disabled.`,
    request: callRequest(
      signatureHeader,
      TEST_EVENT,
      { type: 'null' },
      'The `test` call’s body: `payload` is null',
    ),
    responses: {
      200: {
        description: `The challenge answered: the webhook becomes active. Any 2xx status; \`content-type: application/json\`; the body exactly \`{"challenge": <the request's ${signatureHeader} header>}\`.`,
        content: {
          'application/json': {
            schema: z
              .object({
                challenge: z
                  .string()
                  .openapi({ description: `The request's ${signatureHeader} header value` }),
              })
              .strict(),
          },
        },
      },
      default: { description: 'Anything else fails the verification (422 from POST /v1/webhook/{id}/test)' },
    },
  });
}
