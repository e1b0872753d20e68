import { randomBytes, randomUUID } from 'node:crypto';
import { getAddress, verifyMessage } from 'ethers';
import type { Config } from '../../config';
import type { AuthenticatedAccount } from '../../context';
import type { PrismaClient } from '../../db/prisma';
import { NotFoundError, RateLimitedError, UnauthenticatedError } from '../../errors';
import type { RequestAuthenticator } from '../../http/authenticate';
import type { Logger } from '../../logger';
import { generateApiKey, hashApiKey, isWellFormedApiKey, sameKeyHash } from './api-key';
import { buildChallengeMessage } from './challenge-message';

export const SIGNATURE_VERIFICATION_FAILED = 'Signature verification failed';

/** last_used_at is written at most this often per key, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * How many of an address's open challenges a verification looks at (newest first). More than one,
 * so that someone requesting challenges for another person's address cannot make the challenge
 * that person signed unusable.
 */
const OPEN_CHALLENGES_CHECKED = 16;

/** An API key as its owner sees it in listings. */
export interface ApiKeyRecord {
  id: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function signerOf(message: string, signature: string): string | null {
  try {
    return getAddress(verifyMessage(message, signature));
  } catch {
    return null;
  }
}

/**
 * Accounts and API keys: wallet-signed challenges, key issue/list/revoke, and the per-request
 * key check and rate limit the HTTP layer runs for every {base_url} and GraphQL request.
 */
export class AuthService implements RequestAuthenticator {
  private readonly log: Logger;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly config: Config,
    log: Logger,
  ) {
    this.log = log.child({ module: 'auth' });
  }

  /** Stores a single-use challenge for `address` (checksummed) and returns the text to sign. */
  async createChallenge(address: string): Promise<{ challenge: string }> {
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = new Date();
    const expiresAt = new Date(issuedAt.getTime() + this.config.auth.challengeTtlSeconds * 1000);
    const message = buildChallengeMessage({ address, nonce, issuedAt, expiresAt });
    await this.prisma.apiKeyChallenge.create({ data: { address, nonce, message, expiresAt } });
    return { challenge: message };
  }

  /**
   * Checks `signature` against the address's open challenges and issues a new key when it is the
   * address's signature of one of them. The challenge used (or, when none matches, the newest) is
   * consumed either way, atomically, so two concurrent verifications cannot both use it.
   * Any failure is the same 401 'Signature verification failed'.
   */
  async verifyChallenge(address: string, signature: string): Promise<{ api_key: string }> {
    const open = await this.prisma.$queryRaw<{ id: bigint; message: string }[]>`
      SELECT id, message FROM api_key_challenges
      WHERE address = ${address} AND consumed_at IS NULL AND expires_at > now()
      ORDER BY id DESC
      LIMIT ${OPEN_CHALLENGES_CHECKED}`;
    if (open.length === 0) throw new UnauthenticatedError(SIGNATURE_VERIFICATION_FAILED);

    const match = open.find((challenge) => signerOf(challenge.message, signature) === address);
    const target = match ?? open[0];
    const consumed = await this.prisma.$queryRaw<{ id: bigint }[]>`
      UPDATE api_key_challenges SET consumed_at = now()
      WHERE id = ${target.id} AND consumed_at IS NULL AND expires_at > now()
      RETURNING id`;
    if (!match || consumed.length === 0) {
      this.log.info({ address, matched: Boolean(match) }, 'API key challenge verification failed');
      throw new UnauthenticatedError(SIGNATURE_VERIFICATION_FAILED);
    }
    return { api_key: await this.issueApiKey(address) };
  }

  /** Creates the account on its first key, stores the key's hash, returns the key (shown once). */
  private async issueApiKey(address: string): Promise<string> {
    const { key, prefix, hash } = generateApiKey();
    const id = randomUUID();
    await this.prisma.$transaction([
      this.prisma
        .$executeRaw`INSERT INTO accounts (address) VALUES (${address}) ON CONFLICT (address) DO NOTHING`,
      this.prisma.apiKey.create({ data: { id, accountAddress: address, prefix, keyHash: hash } }),
    ]);
    this.log.info({ address, apiKeyId: id, prefix }, 'API key issued');
    return key;
  }

  /** Resolves an X-API-KEY value. No cache: a revocation holds from the very next request. */
  async authenticate(apiKey: string): Promise<AuthenticatedAccount> {
    if (!isWellFormedApiKey(apiKey)) throw new UnauthenticatedError('Invalid API key');
    const hash = hashApiKey(apiKey);
    const row = await this.prisma.apiKey.findUnique({
      where: { keyHash: hash },
      select: { id: true, accountAddress: true, keyHash: true, lastUsedAt: true, revokedAt: true },
    });
    if (!row || !sameKeyHash(row.keyHash, hash)) throw new UnauthenticatedError('Invalid API key');
    if (row.revokedAt) throw new UnauthenticatedError('API key revoked');
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.prisma.$executeRaw`
        UPDATE api_keys SET last_used_at = now()
        WHERE id = ${row.id}::uuid
          AND (last_used_at IS NULL OR last_used_at <= now() - ${LAST_USED_RESOLUTION_MS}::int * interval '1 millisecond')`;
    }
    return { address: row.accountAddress, apiKeyId: row.id };
  }

  /**
   * Counts one request of the key in the current fixed window, in PostgreSQL, so every Laurel
   * process on the database shares the count. Windows are aligned to the database clock.
   */
  async countRequest(account: AuthenticatedAccount): Promise<void> {
    const { windowSeconds, maxRequests } = this.config.auth.rateLimit;
    const [counter] = await this.prisma.$queryRaw<{ count: number; retry_after: number }[]>`
      INSERT INTO rate_limit_counters AS c (api_key_id, window_start, count)
      VALUES (
        ${account.apiKeyId}::uuid,
        to_timestamp(floor(extract(epoch FROM now()) / ${windowSeconds}::int) * ${windowSeconds}::int),
        1
      )
      ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = c.count + 1
      RETURNING c.count,
        ceil(extract(epoch FROM c.window_start + ${windowSeconds}::int * interval '1 second' - now()))::int
          AS retry_after`;
    if (counter.count > maxRequests) throw new RateLimitedError(Math.max(1, counter.retry_after));
  }

  /** The account's keys, oldest first, revoked ones included. */
  async listApiKeys(address: string): Promise<ApiKeyRecord[]> {
    const keys = await this.prisma.apiKey.findMany({
      where: { accountAddress: address },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return keys.map((key) => ({
      id: key.id,
      prefix: key.prefix,
      created_at: key.createdAt,
      last_used_at: key.lastUsedAt,
      revoked_at: key.revokedAt,
    }));
  }

  /** Revokes one of the account's keys (idempotent); another account's key is "not found". */
  async revokeApiKey(address: string, id: string): Promise<ApiKeyRecord> {
    const [key] = await this.prisma.$queryRaw<ApiKeyRecord[]>`
      UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
      WHERE id = ${id}::uuid AND account_address = ${address}
      RETURNING id::text AS id, prefix, created_at, last_used_at, revoked_at`;
    if (!key) throw new NotFoundError('api_key_not_found', 'API key not found');
    this.log.info({ address, apiKeyId: id }, 'API key revoked');
    return key;
  }
}
