import { randomBytes, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config';
import {
  defineFailure,
  INVALID_API_KEY,
  UnauthenticatedError,
  ValidationError,
  type DocumentedFailure,
} from '../../errors';
import { databaseRefusesWrites } from '../../db/availability';
import type { Logger } from '../../logger';
import type { NotificationSession } from '../../db/notifications';
import type {
  AuthenticatedAccount,
  KeyScope,
  RequestAuthenticator,
  RequestOrigin,
  RevocationWatcher,
} from '../../operations/request-context';
import { generateApiKey, hashApiKey, isWellFormedApiKey, sameKeyHash } from './api-key';
import type { AuthRepository } from './auth.repository';
import type { VerifyChallengeInput } from './auth.schema';
import type { ApiKeyInfo } from './auth.types';
import { buildChallengeMessage, verifyChallengeSignature } from './challenge-message';
import { KeyRevocations } from './key-revocations';
import type { IdempotencyRecords } from './idempotency-records';
import type { RequestBudgets } from './request-budgets';

export const SIGNATURE_VERIFICATION_FAILED = 'Signature verification failed';
/** What an expired key answers (401, as an unknown key). */
export const API_KEY_EXPIRED = 'API key expired';

/**
 * How long a process may go on accepting a key another process revoked while it does not hear
 * revocations (its LISTEN session is down); otherwise it forgets the key when told.
 */
export const AUTHENTICATED_KEY_TTL_MS = 1_000;
/** Keys remembered at most (the busiest ones; least recently used first out). */
const AUTHENTICATED_KEYS_CACHED = 10_000;

/** last_used_at is written at most this often per key, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** 409 on /key/verify: the wallet holds the most active keys it may; it must revoke one first. */
export const TOO_MANY_API_KEYS = defineFailure({
  status: 409,
  codes: ['too_many_api_keys'],
  description:
    'The wallet holds API_KEYS_PER_WALLET active keys: revoke one first (the signed challenge stays usable)',
});

export const SIGNATURE_REJECTED: DocumentedFailure = {
  status: 401,
  codes: ['unauthenticated'],
  description: '`Signature verification failed`: not the wallet’s signature of one of its open challenges',
};

export const API_KEY_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['api_key_not_found'],
  description: 'The wallet has no key with this id',
});

class ApiKeyNotFoundError extends API_KEY_NOT_FOUND.Error {
  constructor() {
    super('API key not found');
  }
}

export class TooManyApiKeysError extends TOO_MANY_API_KEYS.Error {
  constructor(limit: number) {
    super(
      `This wallet already has ${limit} active API keys: revoke one (DELETE /v1/keys/:id) before creating another`,
    );
  }
}

/** What a request that names no usable host answers: the sign-in message must name one. */
function unusableHost(): ValidationError {
  return new ValidationError([
    {
      code: 'invalid_host',
      path: [],
      message:
        'The request names no usable host (Host header): the message to sign names the domain it came to',
    },
  ]);
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

  private readonly revocations: KeyRevocations;

  constructor(
    private readonly repository: AuthRepository,
    private readonly config: Config,
    private readonly budgets: RequestBudgets,
    /** The answers of requests sent with an Idempotency-Key (the transports hand it to operations). */
    readonly idempotency: IdempotencyRecords,
    notifications: NotificationSession,
    log: Logger,
    /** The chain id sign-in messages name (EIP-4361 requires one; a key is not bound to a chain). */
    private readonly chainId: number,
  ) {
    this.log = log.child({ module: 'auth' });
    this.revocations = new KeyRevocations(
      notifications,
      repository,
      (apiKeyId) => this.forget(apiKeyId),
      this.log,
    );
  }

  /**
   * The Sign-In with Ethereum message `address` (checksummed) signs to get a key, naming the domain
   * and URI the request came to: the wallet's open challenge for that domain while it has at least
   * half its lifetime left, else a new single-use one (see AuthRepository.currentChallenge).
   * Limited per client address and per wallet.
   */
  async createChallenge(
    address: string,
    clientAddress: string,
    origin: RequestOrigin | null | undefined,
  ): Promise<{ challenge: string }> {
    await this.budgets.spendKeyRequest(clientAddress);
    await this.budgets.spendChallenge(address);
    if (!origin || origin.host.length > 255) throw unusableHost();
    const ttlMs = this.config.auth.challengeTtlSeconds * 1000;
    const make = () => {
      const nonce = randomBytes(16).toString('hex');
      const issuedAt = new Date();
      const expiresAt = new Date(issuedAt.getTime() + ttlMs);
      const message = buildChallengeMessage({
        domain: origin.host,
        uri: `${origin.scheme}://${origin.host}`,
        chainId: this.chainId,
        address,
        nonce,
        issuedAt,
        expiresAt,
      });
      if (message === null) throw unusableHost();
      return { nonce, message, expiresAt };
    };
    return { challenge: await this.repository.currentChallenge(address, origin.host, ttlMs / 2, make) };
  }

  /**
   * Issues a new key when `signature` is the address's signature of one of its open challenges for
   * the domain the request came to (a challenge relayed from another domain is refused). A wallet
   * has at most two open per domain, so a failed verification recovers a signer at most twice,
   * however many challenges anyone asked for. Only the matching challenge is consumed
   * (atomically: two verifications cannot both use it); a failed verification consumes nothing,
   * so a stranger's garbage cannot spoil the challenge the wallet signed. Any failure is the same
   * 401 'Signature verification failed'. Limited per client address; a wallet holding
   * API_KEYS_PER_WALLET active keys gets TooManyApiKeysError (the challenge stays usable).
   */
  async verifyChallenge(
    input: VerifyChallengeInput,
    clientAddress: string,
    origin: RequestOrigin | null | undefined,
  ): Promise<{ api_key: string }> {
    const { public_address: address, signature } = input;
    await this.budgets.spendKeyRequest(clientAddress);
    const maxLifetime = this.config.auth.maxKeyLifetimeSeconds;
    if (input.expires_in_seconds !== undefined && input.expires_in_seconds > maxLifetime) {
      throw ValidationError.field(
        'expires_in_seconds',
        `A key lives at most ${maxLifetime} seconds (API_KEY_MAX_LIFETIME_SECONDS)`,
        'too_big',
      );
    }
    if (!origin) throw unusableHost();
    const open = await this.repository.openChallenges(address, origin.host);
    let match: bigint | null = null;
    for (const challenge of open) {
      if (await verifyChallengeSignature(challenge.message, signature, origin.host)) {
        match = challenge.id;
        break;
      }
    }
    if (match === null) {
      this.log.info({ address, open: open.length }, 'API key challenge verification failed');
      throw new UnauthenticatedError(SIGNATURE_VERIFICATION_FAILED);
    }
    const scope = input.scope ?? 'full';
    return { api_key: await this.issueApiKey(address, match, scope, input.expires_in_seconds ?? null) };
  }

  /** Stores a new key for the wallet, consuming its challenge; returns the key (shown once). */
  private async issueApiKey(
    address: string,
    challengeId: bigint,
    scope: KeyScope,
    expiresInSeconds: number | null,
  ): Promise<string> {
    const { key, prefix, hash } = generateApiKey();
    const id = randomUUID();
    const limit = this.config.auth.keysPerWallet;
    const refused = await this.repository.issueKey({
      id,
      address,
      prefix,
      keyHash: hash,
      challengeId,
      activeKeysAllowed: limit,
      scope,
      expiresInSeconds,
    });
    if (refused === 'challenge_used') throw new UnauthenticatedError(SIGNATURE_VERIFICATION_FAILED);
    if (refused === 'too_many_keys') throw new TooManyApiKeysError(limit);
    this.log.info({ address, apiKeyId: id, prefix, scope, expiresInSeconds }, 'API key issued');
    return key;
  }

  /**
   * Resolves an X-API-KEY value. A valid key is remembered for AUTHENTICATED_KEY_TTL_MS (bounded
   * LRU): a revocation holds from the very next request in the process that revoked it (which
   * forgets the key at once), as soon as its notification arrives in every other process, and
   * within that time in one that does not hear notifications. An expiring key is remembered no
   * longer than it lives, so every process refuses it from its expiry on (by its own clock); its
   * scope never changes, so what is remembered of it holds.
   */
  async authenticate(apiKey: string): Promise<AuthenticatedAccount> {
    if (!isWellFormedApiKey(apiKey)) throw new UnauthenticatedError(INVALID_API_KEY);
    const hash = hashApiKey(apiKey);
    const remembered = this.authenticated.get(hash);
    if (remembered) return remembered;
    const row = await this.repository.findKeyByHash(hash);
    if (!row || !sameKeyHash(row.keyHash, hash)) throw new UnauthenticatedError(INVALID_API_KEY);
    if (row.revokedAt) throw new UnauthenticatedError('API key revoked');
    const livesMs = row.expiresAt ? row.expiresAt.getTime() - Date.now() : Number.POSITIVE_INFINITY;
    if (livesMs <= 0) throw new UnauthenticatedError(API_KEY_EXPIRED);
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      // A database refusing writes (read-only) still serves the reads the key is for.
      await this.repository.touchKey(row.id, LAST_USED_RESOLUTION_MS).catch((error: unknown) => {
        if (!databaseRefusesWrites(error)) throw error;
      });
    }
    const account = {
      address: row.accountAddress,
      apiKeyId: row.id,
      scope: row.scope,
      expiresAt: row.expiresAt,
    };
    this.authenticated.set(hash, account, { ttl: Math.min(AUTHENTICATED_KEY_TTL_MS, Math.ceil(livesMs)) });
    return account;
  }

  /** Spends `cost` of the wallet's request budget (all its keys together); RateLimitedError over it. */
  async countRequest(account: AuthenticatedAccount, cost = 1): Promise<void> {
    await this.budgets.spendWallet(account.address, cost);
  }

  /** Spends one of the client's GraphQL requests without a valid key; RateLimitedError over it. */
  async countAnonymousRequest(clientAddress: string): Promise<void> {
    await this.budgets.spendAnonymousGraphql(clientAddress);
  }

  /** Housekeeping (maintenance__prune): expired request budgets, old challenges, expired idempotency keys. */
  async pruneExpired(): Promise<Record<string, number>> {
    return { ...(await this.repository.pruneExpired()), ...(await this.idempotency.pruneExpired()) };
  }

  /** Sends the request counts held in memory to the database and stops sending them. */
  stop(): Promise<void> {
    return this.budgets.stop();
  }

  /** The account's keys, oldest first, revoked ones included. */
  listApiKeys(address: string): Promise<ApiKeyInfo[]> {
    return this.repository.listKeys(address);
  }

  /** Tells `watcher` of every key revoked, by any process (see KeyRevocations). */
  watchRevocations(watcher: RevocationWatcher): () => void {
    return this.revocations.watch(watcher);
  }

  /**
   * Revokes one of the account's keys (idempotent); another account's key is "not found". Every
   * process is told (its WebSockets of the key close); this one before it answers.
   */
  async revokeApiKey(address: string, id: string): Promise<ApiKeyInfo> {
    const key = await this.repository.revokeKey(address, id);
    if (!key) throw new ApiKeyNotFoundError();
    this.revocations.revoked(key.id);
    this.log.info({ address, apiKeyId: id }, 'API key revoked');
    return key;
  }

  /** Forgets a remembered key (null: every key). */
  private forget(apiKeyId: string | null): void {
    if (apiKeyId === null) return this.authenticated.clear();
    for (const [hash, account] of this.authenticated.entries()) {
      if (account.apiKeyId === apiKeyId) this.authenticated.delete(hash);
    }
  }
}
