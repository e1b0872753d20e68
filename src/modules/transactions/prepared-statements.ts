import type { Pool } from 'pg';
import type { Prisma } from '../../db/prisma';

/**
 * The wing's one way around the ORM: the statements every build or send makes (reserving and
 * marking nonces, recording a transaction and its receipt, the nonce-gap count) run by name on the
 * pool, so PostgreSQL parses and plans each once per connection, where the ORM's statements go
 * unnamed and are parsed and planned at every call (behind a transaction-mode pooler every
 * statement is sent unnamed anyway: src/db/connection.ts). Everything else goes through Prisma.
 */
export async function runPrepared<Row extends object>(
  pool: Pool,
  name: string,
  statement: Prisma.Sql,
): Promise<Row[]> {
  const { rows } = await pool.query<Row>({ name, text: statement.text, values: statement.values });
  return rows;
}
