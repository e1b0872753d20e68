import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';

/** The two HMAC keys of one account secret, prepared once (see signWebhookCall). */
export interface WebhookSigningKey {
  /** The secret string exactly as shown to its owner: keys the body signature. */
  body: KeyObject;
  /** The base64-decoded part of the `whsec_` secret: keys the Standard Webhooks signature. */
  standard: KeyObject;
}

export function webhookSigningKey(secret: string): WebhookSigningKey {
  return {
    body: createSecretKey(Buffer.from(secret, 'utf8')),
    standard: createSecretKey(Buffer.from(secret.slice(STANDARD_WEBHOOKS_SECRET_PREFIX.length), 'base64')),
  };
}

/**
 * The signature headers of one webhook call:
 * - `<signatureHeader>` (x-laurel-signature by default): base64 HMAC-SHA256 of the raw body, keyed
 *   with the secret string exactly as shown to its owner (the interface's rule);
 * - the Standard Webhooks headers `webhook-id` (the idempotency key), `webhook-timestamp` (Unix
 *   seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with
 *   the base64-decoded part of the `whsec_` secret, as that specification says).
 * With `previousKey` (a rotated secret still in its window), `webhook-signature` lists a signature
 * of each, space-separated, the current one first, so a receiver holding either secret verifies;
 * the legacy header has room for one value and carries the current secret's.
 */
export function signWebhookCall(input: {
  key: WebhookSigningKey;
  previousKey?: WebhookSigningKey | null;
  signatureHeader: string;
  idempotencyKey: string;
  timestampSeconds: number;
  body: string;
}): Record<string, string> {
  const { key, previousKey, idempotencyKey, timestampSeconds, body } = input;
  const signedContent = `${idempotencyKey}.${timestampSeconds}.${body}`;
  const standardSignatures = [key, ...(previousKey ? [previousKey] : [])].map(
    (signing) => `v1,${createHmac('sha256', signing.standard).update(signedContent).digest('base64')}`,
  );
  return {
    [input.signatureHeader]: createHmac('sha256', key.body).update(body).digest('base64'),
    'webhook-id': idempotencyKey,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignatures.join(' '),
  };
}
