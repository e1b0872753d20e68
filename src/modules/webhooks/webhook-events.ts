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
