import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export { PrismaClient };
export type { Prisma } from '../generated/prisma/client';
export type { TransactionStatus } from '../generated/prisma/enums';

/** How long a query waits for a connection: a database that does not answer becomes a 503, not a hang. */
const CONNECTION_TIMEOUT_MS = 5000;

/**
 * The Rust-free Prisma client over node-postgres. Its pool drops broken connections and opens new
 * ones on demand, so it reconnects by itself once a lost database is back.
 */
export function createPrismaClient(databaseUrl: string, maxConnections = 10): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({
      connectionString: databaseUrl,
      max: maxConnections,
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    }),
  });
}
