import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys look like `laurel_<43 base64url characters>` (32 random bytes): the fixed prefix lets
 * secret scanners recognise a leaked key. Only the SHA-256 of a key is stored.
 */
export const API_KEY_PREFIX = 'laurel_';
const API_KEY_PATTERN = /^laurel_[A-Za-z0-9_-]{43}$/;
/** How many leading characters of a key listings show (`laurel_` plus 5). */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 12;

export interface NewApiKey {
  /** The key itself: shown to its owner once, never stored. */
  key: string;
  /** The first characters, stored for listings. */
  prefix: string;
  /** SHA-256 hex of the key, stored. */
  hash: string;
}

/** One-shot `crypto.hash`: the same digest as a Hash object, without making one (every request hashes its key). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function generateApiKey(): NewApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** Whether a presented value has the form of a Laurel key (checked before any database lookup). */
export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** Constant-time comparison of two SHA-256 hex digests. */
export function sameKeyHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}
