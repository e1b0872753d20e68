import { PrismaPg } from '@prisma/adapter-pg';
import type { Pool } from 'pg';
import type { PoolerMode } from '../config';
import { PrismaClient, Prisma } from '../generated/prisma/client';
import { createPool, type StatementLimits } from './connection';

export { PrismaClient, Prisma };
export type { TransactionStatus } from '../generated/prisma/enums';

/** The client or an interactive transaction's client: what a statement that may join a transaction runs on. */
export type SqlClient = PrismaClient | Prisma.TransactionClient;

/** How long a query waits for a connection: a database that does not answer becomes a 503, not a hang. */
const CONNECTION_TIMEOUT_MS = 5000;

/** One connection pool, used by the Prisma client and by what speaks SQL directly (rate limits, nonces). */
export interface Database {
  prisma: PrismaClient;
  pool: Pool;
}

/**
 * The Rust-free Prisma client over a node-postgres pool of at most `maxConnections`. The pool drops
 * broken connections and opens new ones on demand, so it reconnects by itself once a lost database
 * is back. An idle connection the server closes (restart, database dropped) is reported to
 * `onIdleError`; without a listener it would crash the process. Behind a transaction-mode pooler
 * (`pooler`), no statement is prepared by name (src/db/connection.ts).
 */
export function connectDatabase(
  databaseUrl: string,
  options: {
    maxConnections?: number;
    onIdleError?: (error: Error) => void;
    pooler?: PoolerMode;
    /** Bounds of each statement (createPool); none by default. */
    limits?: StatementLimits;
  } = {},
): Database {
  const { maxConnections = 10, onIdleError = () => undefined, pooler = 'session', limits } = options;
  const pool = createPool(databaseUrl, {
    max: maxConnections,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    pooler,
    limits,
  });
  pool.on('error', onIdleError);
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
}
