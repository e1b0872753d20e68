import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../generated/prisma/client';

export { PrismaClient };
export type { Prisma } from '../generated/prisma/client';

/** One connection pool, used by the Prisma client and by what speaks SQL directly (rate limiter). */
export interface Database {
  prisma: PrismaClient;
  pool: Pool;
}

/**
 * The Rust-free Prisma client over a node-postgres pool of at most `maxConnections`. An idle
 * connection the server closes (restart, database dropped) is reported to `onIdleError` and
 * replaced on next use; without a listener it would crash the process.
 */
export function connectDatabase(
  databaseUrl: string,
  maxConnections = 10,
  onIdleError: (error: Error) => void = () => undefined,
): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: maxConnections });
  pool.on('error', onIdleError);
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
}
