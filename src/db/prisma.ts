import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';

export { PrismaClient };
export type { Prisma } from '../generated/prisma/client';

/** The Rust-free Prisma client over node-postgres. */
export function createPrismaClient(databaseUrl: string, maxConnections = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: maxConnections }) });
}
