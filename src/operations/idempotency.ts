import { createHash } from 'node:crypto';
import { defineFailure, ValidationError } from '../errors';
import type { Logger } from '../logger';

/**
 * Idempotency-Key (IETF draft "The Idempotency-Key HTTP Header Field", Stripe where the draft is
 * silent): an authenticated mutation sent with the header runs once per key, account and endpoint
 * (the REST operation, or the GraphQL field by its alias).
 * A retry with the same input gets the first answer again; another input under the key is 422; a
 * retry while the first still runs is 409 with Retry-After. Only successes are kept: a failed run
 * frees its key (see docs/api-notes.md#idempotent-requests).
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export const IDEMPOTENCY_KEY_REUSED = defineFailure({
  status: 422,
  codes: ['idempotency_key_reused'],
  description:
    'The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request',
});

export const IDEMPOTENCY_KEY_IN_PROGRESS = defineFailure({
  status: 409,
  codes: ['idempotency_key_in_progress'],
  description:
    'A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer',
});

/** Seconds a retry waits for the first request's answer (Retry-After of a 409 in progress). */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

class IdempotencyKeyReusedError extends IDEMPOTENCY_KEY_REUSED.Error {
  constructor() {
    super('Idempotency-Key was already used with another request on this operation');
  }
}

class IdempotencyKeyInProgressError extends IDEMPOTENCY_KEY_IN_PROGRESS.Error {
  constructor() {
    super('A request with this Idempotency-Key is still running: retry later');
    this.headers['Retry-After'] = String(IN_PROGRESS_RETRY_AFTER_SECONDS);
  }
}

/** Where a key's record lives: the account and the endpoint (a REST operation, or a GraphQL field). */
export interface IdempotencyScope {
  account: string;
  operation: string;
  key: string;
}

/** What claiming a key found: it is this run's now, or an earlier run's answer, or someone else's. */
export type IdempotencyClaim =
  | { state: 'claimed'; holder: string }
  | { state: 'completed'; answer: unknown }
  | { state: 'mismatch' }
  | { state: 'in_progress' };

/** The records of keys and their answers, shared by every process on the database. */
export interface IdempotencyStore {
  /** The longest key accepted (IDEMPOTENCY_KEY_MAX_LENGTH). */
  readonly keyMaxLength: number;
  claim(scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyClaim>;
  /** Keeps the answer of the run that holds the key. */
  complete(scope: IdempotencyScope, holder: string, answer: unknown): Promise<void>;
  /** Frees the key the run holds (it failed: nothing is kept). */
  release(scope: IdempotencyScope, holder: string): Promise<void>;
}

/** A request's Idempotency-Key, where its record is kept, and whether its answer was given again. */
export interface IdempotentRequest {
  /** The header as sent. */
  key: string;
  store: IdempotencyStore;
  /** Set when the answer is an earlier run's (REST says so in `Idempotent-Replayed: true`). */
  replayed: boolean;
}

/** Operations that honour the header: mutations of an account (public ones have no scope). */
export function takesIdempotencyKey(definition: { kind: 'query' | 'mutation'; public?: boolean }): boolean {
  return definition.kind === 'mutation' && !definition.public;
}

/** Visible ASCII less `"` and `\`: what a bare key, or the draft's quoted sf-string, may hold. */
const KEY_CHARACTERS = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The key of the header (an sf-string's quotes taken off), or a 400 naming what is wrong. */
function checkedKey(value: string, maxLength: number): string {
  const key = /^".*"$/.test(value) ? value.slice(1, -1) : value;
  if (key.length === 0 || key.length > maxLength || !KEY_CHARACTERS.test(key)) {
    throw ValidationError.field(
      IDEMPOTENCY_KEY_HEADER,
      `must be 1 to ${maxLength} visible ASCII characters without spaces, quotes or backslashes (e.g. a UUID)`,
    );
  }
  return key;
}

/** JSON with object keys sorted (bigints as decimal strings): equal inputs, equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'bigint') return inner.toString();
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** SHA-256 of the operation and its validated input: what tells a retry from another request. */
function fingerprintOf(operation: string, input: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(input) ?? ''}`)
    .digest('hex');
}

/**
 * Runs `run` once per key: the first request under it runs and its success is kept; a retry with
 * the same input gets that answer; another input is refused (422); a retry while the first runs
 * gets 409. A failure (any error, 4xx or 5xx) frees the key, so the request may be sent again.
 */
export async function runIdempotently(
  request: IdempotentRequest,
  scope: Omit<IdempotencyScope, 'key'>,
  input: unknown,
  run: () => Promise<unknown>,
  log: Logger,
): Promise<unknown> {
  const { store } = request;
  const keyed: IdempotencyScope = { ...scope, key: checkedKey(request.key, store.keyMaxLength) };
  const claim = await store.claim(keyed, fingerprintOf(scope.operation, input));
  if (claim.state === 'mismatch') throw new IdempotencyKeyReusedError();
  if (claim.state === 'in_progress') throw new IdempotencyKeyInProgressError();
  if (claim.state === 'completed') {
    request.replayed = true;
    return claim.answer;
  }
  let result: unknown;
  try {
    result = await run();
  } catch (error) {
    await store.release(keyed, claim.holder).catch((releaseError: unknown) => {
      // The key stays held until IDEMPOTENCY_LOCK_SECONDS pass; the request's own error is the answer.
      log.warn({ err: releaseError }, 'could not free an Idempotency-Key after a failed request');
    });
    throw error;
  }
  // The work is done: its answer goes to the client even if it cannot be kept.
  await store.complete(keyed, claim.holder, result).catch((completeError: unknown) => {
    log.warn({ err: completeError }, 'could not keep the answer of an Idempotency-Key');
  });
  return result;
}
