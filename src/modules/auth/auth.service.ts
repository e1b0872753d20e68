import { randomBytes, randomUUID } from 'node:crypto';
import { getAddress, verifyMessage } from 'ethers';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config';
import type { AuthenticatedAccount } from '../../context';
import type { PrismaClient } from '../../db/prisma';
import { AppError, NotFoundError, UnauthenticatedError } from '../../errors';
import type { RequestAuthenticator } from '../../http/authenticate';
import type { Logger } from '../../logger';
import { generateApiKey, hashApiKey, isWellFormedApiKey, sameKeyHash } from './api-key';
import { buildChallengeMessage } from './challenge-message';
import type { RequestBudgets } from './request-budgets';

export const SIGNATURE_VERIFICATION_FAILED = 'Signature verification failed';

/** How long a process may go on accepting a key another process revoked. */
export const AUTHENTICATED_KEY_TTL_MS = 1_000;
/** Keys remembered at most (the busiest ones; least recently used first out). */
const AUTHENTICATED_KEYS_CACHED = 10_000;

/** last_used_at is written at most this often per key, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * A bound on the open challenges a verification looks at. Challenge creation per wallet is rate
 * limited (KEY_CHALLENGES_PER_WALLET a minute), so within a challenge's lifetime a wallet has far
 * fewer than this: a stranger cannot push the challenge a wallet signed out of reach.
 */
const OPEN_CHALLENGES_CHECKED = 1_000;

/** 409 on /key/verify: the wallet holds the most active keys it may; it must revoke one first. */
export class TooManyApiKeysError extends AppError {
  constructor(limit: number) {
    super(
      'too_many_api_keys',
      `This wallet already has ${limit} active API keys: revoke one (DELETE /v1/keys/:id) before creating another`,
      409,
    );
  }
}

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
  /** Valid keys by hash, for a second at most (see authenticate). */
  private readonly authenticated = new LRUCache<string, AuthenticatedAccount>({
    max: AUTHENTICATED_KEYS_CACHED,
    ttl: AUTHENTICATED_KEY_TTL_MS,
  });

  constructor(
    private readonly prisma: PrismaClient,
    private readonly config: Config,
    private readonly budgets: RequestBudgets,
    log: Logger,
  ) {
    this.log = log.child({ module: 'auth' });
  }

  /**
   * Stores a single-use challenge for `address` (checksummed) and returns the text to sign. Limited
   * per client address and per wallet.
   */
  async createChallenge(address: string, clientAddress: string): Promise<{ challenge: string }> {
    await this.budgets.spendKeyRequest(clientAddress);
    await this.budgets.spendChallenge(address);
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = new Date();
    const expiresAt = new Date(issuedAt.getTime() + this.config.auth.challengeTtlSeconds * 1000);
    const message = buildChallengeMessage({ address, nonce, issuedAt, expiresAt });
    await this.prisma.apiKeyChallenge.create({ data: { address, nonce, message, expiresAt } });
    return { challenge: message };
  }

  /**
   * Issues a new key when `signature` is the address's signature of one of its open challenges.
   * Only that challenge is consumed (atomically: two verifications cannot both use it); a failed
   * verification consumes nothing, so a stranger's garbage cannot spoil the challenge the wallet
   * signed. Any failure is the same 401 'Signature verification failed'. Limited per client
   * address; a wallet holding API_KEYS_PER_WALLET active keys gets TooManyApiKeysError (the
   * challenge stays usable).
   */
  async verifyChallenge(
    address: string,
    signature: string,
    clientAddress: string,
  ): Promise<{ api_key: string }> {
    await this.budgets.spendKeyRequest(clientAddress);
    const open = await this.prisma.$queryRaw<{ id: bigint; message: string }[]>`
      SELECT id, message FROM api_key_challenges
      WHERE address = ${address} AND consumed_at IS NULL AND expires_at > now()
      ORDER BY id DESC
      LIMIT ${OPEN_CHALLENGES_CHECKED}`;
    const match = open.find((challenge) => signerOf(challenge.message, signature) === address);
    if (!match) {
      this.log.info({ address, open: open.length }, 'API key challenge verification failed');
      throw new UnauthenticatedError(SIGNATURE_VERIFICATION_FAILED);
    }
    return { api_key: await this.issueApiKey(address, match.id) };
  }

  /**
   * Consumes the challenge and stores the new key's hash in one transaction, serialised per wallet
   * so that the active-key cap holds under concurrent verifications; returns the key (shown once).
   */
  private async issueApiKey(address: string, challengeId: bigint): Promise<string> {
    const { key, prefix, hash } = generateApiKey();
    const id = randomUUID();
    const limit = this.config.auth.keysPerWallet;
    await this.prisma.$transaction(async (db) => {
      await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`api-keys:${address}`}))`;
      const consumed = await db.$queryRaw<{ id: bigint }[]>`
        UPDATE api_key_challenges SET consumed_at = now()
        WHERE id = ${challengeId} AND consumed_at IS NULL AND expires_at > now()
        RETURNING id`;
      if (consumed.length === 0) throw new UnauthenticatedError(SIGNATURE_VERIFICATION_FAILED);
      const active = await db.apiKey.count({ where: { accountAddress: address, revokedAt: null } });
      if (active >= limit) throw new TooManyApiKeysError(limit);
      await db.$executeRaw`INSERT INTO accounts (address) VALUES (${address}) ON CONFLICT (address) DO NOTHING`;
      await db.apiKey.create({ data: { id, accountAddress: address, prefix, keyHash: hash } });
    });
    this.log.info({ address, apiKeyId: id, prefix }, 'API key issued');
    return key;
  }

  /**
   * Resolves an X-API-KEY value. A valid key is remembered for AUTHENTICATED_KEY_TTL_MS (bounded
   * LRU): a revocation holds from the very next request in the process that revoked it (which
   * forgets the key at once) and within that time in every other process.
   */
  async authenticate(apiKey: string): Promise<AuthenticatedAccount> {
    if (!isWellFormedApiKey(apiKey)) throw new UnauthenticatedError('Invalid API key');
    const hash = hashApiKey(apiKey);
    const remembered = this.authenticated.get(hash);
    if (remembered) return remembered;
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
    const account = { address: row.accountAddress, apiKeyId: row.id };
    this.authenticated.set(hash, account);
    return account;
  }

  /** Spends `cost` of the wallet's request budget (all its keys together); RateLimitedError over it. */
  async countRequest(account: AuthenticatedAccount, cost = 1): Promise<void> {
    await this.budgets.spendWallet(account.address, cost);
  }

  /** Sends the request counts held in memory to the database and stops sending them. */
  stop(): Promise<void> {
    return this.budgets.stop();
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
    for (const [hash, account] of this.authenticated.entries()) {
      if (account.apiKeyId === key.id) this.authenticated.delete(hash);
    }
    this.log.info({ address, apiKeyId: id }, 'API key revoked');
    return key;
  }
}
