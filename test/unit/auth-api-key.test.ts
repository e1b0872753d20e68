import { createHash } from 'node:crypto';
import {
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  sameKeyHash,
} from '../../src/modules/auth/api-key';

describe('API keys', () => {
  it('are laurel_ + 32 random bytes in base64url, with a short display prefix and a SHA-256 hash', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^laurel_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(API_KEY_PREFIX.length), 'base64url')).toHaveLength(32);
    expect(prefix).toBe(key.slice(0, 12));
    expect(prefix.startsWith('laurel_')).toBe(true);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toBe(hash);
  });

  it('are different every time', () => {
    const keys = new Set(Array.from({ length: 100 }, () => generateApiKey().key));
    expect(keys.size).toBe(100);
  });

  it('recognises well-formed keys only', () => {
    expect(isWellFormedApiKey(generateApiKey().key)).toBe(true);
    expect(isWellFormedApiKey('laurel_short')).toBe(false);
    expect(isWellFormedApiKey(`other_${'a'.repeat(43)}`)).toBe(false);
    expect(isWellFormedApiKey(`laurel_${'a'.repeat(43)}x`)).toBe(false);
    expect(isWellFormedApiKey(`laurel_${'a'.repeat(42)}=`)).toBe(false);
  });

  it('compares hashes', () => {
    const a = hashApiKey('a');
    expect(sameKeyHash(a, hashApiKey('a'))).toBe(true);
    expect(sameKeyHash(a, hashApiKey('b'))).toBe(false);
    expect(sameKeyHash(a, 'abc')).toBe(false);
  });
});
