import { Prisma, type PrismaClient } from '../../db/prisma';
import type { KeyScope } from '../../operations/request-context';
import type { ApiKeyInfo } from './auth.types';
import { keyRevocationNotice, type RevokedKeys } from './key-revocations';

/** Why a key could not be stored (the caller turns these into its documented errors). */
export type IssueRefusal = 'challenge_used' | 'too_many_keys';

/** Every statement on the accounts tables: challenges, API keys, accounts and their housekeeping. */
export class AuthRepository implements RevokedKeys {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The wallet's challenge for `domain`: the open one while it has at least `minLifetimeMs` to
   * live, else a new one made by `make` (the one it replaces stays open until it expires). So a
   * wallet has at most two open challenges per domain, however many are asked for, and every
   * challenge handed out has time to be signed. Serialised per wallet and domain.
   */
  async currentChallenge(
    address: string,
    domain: string,
    minLifetimeMs: number,
    make: () => { nonce: string; message: string; expiresAt: Date },
  ): Promise<string> {
    return this.prisma.$transaction(async (db) => {
      await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`challenge:${address}:${domain}`}))`;
      const [open] = await db.$queryRaw<{ id: bigint; message: string; usable: boolean }[]>`
        SELECT id, message, expires_at >= now() + ${minLifetimeMs}::int * interval '1 millisecond' AS usable
          FROM api_key_challenges
         WHERE address = ${address} AND domain = ${domain} AND consumed_at IS NULL AND expires_at > now()
         ORDER BY id DESC
         LIMIT 1`;
      if (open?.usable) return open.message;
      if (open) {
        // Older ones than the one replaced are withdrawn: two stay open at most.
        await db.$executeRaw`
          UPDATE api_key_challenges SET expires_at = now()
           WHERE address = ${address} AND domain = ${domain} AND consumed_at IS NULL
             AND expires_at > now() AND id < ${open.id}`;
      }
      const challenge = make();
      await db.apiKeyChallenge.create({ data: { address, domain, ...challenge } });
      return challenge.message;
    });
  }

  /** The wallet's open challenges for `domain`, newest first: two at most (see currentChallenge). */
  openChallenges(address: string, domain: string): Promise<{ id: bigint; message: string }[]> {
    return this.prisma.$queryRaw<{ id: bigint; message: string }[]>`
      SELECT id, message FROM api_key_challenges
      WHERE address = ${address} AND domain = ${domain} AND consumed_at IS NULL AND expires_at > now()
      ORDER BY id DESC
      LIMIT 2`;
  }

  /**
   * Consumes the challenge and stores the new key's hash in one transaction, serialised per wallet
   * so that the active-key cap holds under concurrent verifications. Null when stored, else why not.
   */
  async issueKey(key: {
    id: string;
    address: string;
    prefix: string;
    keyHash: string;
    challengeId: bigint;
    activeKeysAllowed: number;
    scope: KeyScope;
    expiresInSeconds: number | null;
  }): Promise<IssueRefusal | null> {
    return this.prisma
      .$transaction(async (db) => {
        await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`api-keys:${key.address}`}))`;
        const consumed = await db.$queryRaw<{ id: bigint }[]>`
        UPDATE api_key_challenges SET consumed_at = now()
        WHERE id = ${key.challengeId} AND consumed_at IS NULL AND expires_at > now()
        RETURNING id`;
        if (consumed.length === 0) return 'challenge_used';
        // Expired keys are not active: they take no place under the cap.
        const [{ active }] = await db.$queryRaw<{ active: number }[]>`
          SELECT count(*)::int AS active FROM api_keys
           WHERE account_address = ${key.address} AND revoked_at IS NULL
             AND (expires_at IS NULL OR expires_at > now())`;
        if (active >= key.activeKeysAllowed) {
          // Nothing is consumed: the challenge stays usable once a key is revoked.
          throw new KeyCapReached();
        }
        await db.$executeRaw`INSERT INTO accounts (address) VALUES (${key.address}) ON CONFLICT (address) DO NOTHING`;
        // The expiry counts from the database's clock, as every process compares it with (authenticate).
        await db.$executeRaw`
          INSERT INTO api_keys (id, account_address, prefix, key_hash, scope, expires_at)
          VALUES (${key.id}::uuid, ${key.address}, ${key.prefix}, ${key.keyHash}, ${key.scope}::api_key_scope,
                  now() + ${key.expiresInSeconds}::int * interval '1 second')`;
        return null;
      })
      .catch((error: unknown) => {
        if (error instanceof KeyCapReached) return 'too_many_keys' as const;
        throw error;
      });
  }

  findKeyByHash(keyHash: string) {
    return this.prisma.apiKey.findUnique({
      where: { keyHash },
      select: {
        id: true,
        accountAddress: true,
        keyHash: true,
        lastUsedAt: true,
        revokedAt: true,
        scope: true,
        expiresAt: true,
      },
    });
  }

  /** Sets last_used_at unless it was set less than `resolutionMs` ago. */
  async touchKey(id: string, resolutionMs: number): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE api_keys SET last_used_at = now()
      WHERE id = ${id}::uuid
        AND (last_used_at IS NULL OR last_used_at <= now() - ${resolutionMs}::int * interval '1 millisecond')`;
  }

  async listKeys(address: string): Promise<ApiKeyInfo[]> {
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
      scope: key.scope,
      expires_at: key.expiresAt,
    }));
  }

  /**
   * Revokes the account's key (idempotent) and tells every process, in the same statement; null
   * when the account has no such key.
   */
  async revokeKey(address: string, id: string): Promise<ApiKeyInfo | null> {
    const [key] = await this.prisma.$queryRaw<ApiKeyInfo[]>`
      WITH revoked AS (
        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE id = ${id}::uuid AND account_address = ${address}
        RETURNING id, prefix, created_at, last_used_at, revoked_at, scope, expires_at
      )
      SELECT id::text AS id, prefix, created_at, last_used_at, revoked_at, scope::text AS scope, expires_at
        FROM revoked, LATERAL (SELECT ${keyRevocationNotice(Prisma.sql`revoked.id`)}) AS notice`;
    return key ?? null;
  }

  /** Of the keys `ids`, those revoked. */
  async revokedAmong(ids: string[]): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM api_keys WHERE id = ANY(${ids}::uuid[]) AND revoked_at IS NOT NULL`;
    return rows.map((row) => row.id);
  }

  /**
   * Deletes request budgets whose window ended more than an hour ago (an expired row counts for
   * nothing: the next request starts a new window) and challenges expired or consumed more than a
   * day ago.
   */
  async pruneExpired(): Promise<{ 'rate limit budgets': number; 'API key challenges': number }> {
    const budgets = await this.prisma.$executeRaw`
      DELETE FROM rate_limits
      WHERE expire < (extract(epoch FROM now() - interval '1 hour') * 1000)::bigint`;
    const challenges = await this.prisma.$executeRaw`
      DELETE FROM api_key_challenges
      WHERE expires_at < now() - interval '1 day' OR consumed_at < now() - interval '1 day'`;
    return { 'rate limit budgets': budgets, 'API key challenges': challenges };
  }
}

/** Rolls back the key's transaction when the wallet holds the most keys it may. */
class KeyCapReached extends Error {}
