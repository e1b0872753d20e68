import { randomBytes } from 'node:crypto';

/** Events a webhook can subscribe to; an empty subscription means all of them. */
export const SUBSCRIBABLE_EVENTS = ['transaction'] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
/** Sent by POST /webhook/:id/test, to the one webhook being verified. */
export const TEST_EVENT = 'test';

/** A new idempotency key, stable for every attempt of the event's deliveries (`webhook-id`). */
export function newIdempotencyKey(): string {
  return `evt_${randomBytes(16).toString('hex')}`;
}

/** The four rules of the verification challenge (the interface's "Verification challenge"), by number. */
export type ChallengeRule = 1 | 2 | 3 | 4;

/**
 * The whole challenge rule in one sentence: every failed verification states it (its 422 and its
 * log entry), and openapi.json's `test` webhook says the same.
 */
export function challengeRules(signatureHeader: string): string {
  return (
    'A test call verifies the webhook when the answer meets all four rules: ' +
    '1. the url has a valid certificate from a CA Laurel trusts; ' +
    '2. the status is 2xx; ' +
    '3. the content-type is application/json; ' +
    `4. the body is JSON with one field, "challenge", whose value is the request's ${signatureHeader} header.`
  );
}
