/**
 * How Laurel opens PostgreSQL connections: one reading of a `postgres://` URL for every pool and
 * client (TLS parameters included), and the statements a pool may send through a pooler.
 *
 * DATABASE_POOLER says what DATABASE_URL (and DATABASE_READ_URL) lead to:
 * - `session`: a server, a session-mode pooler, or a transaction-mode pooler that keeps prepared
 *   statements per client (PgBouncer >= 1.21 with `max_prepared_statements` > 0): hot statements
 *   are prepared by name, once per connection (parsed once, soon run with a generic plan);
 * - `transaction`: a transaction-mode pooler that does not (PgBouncer <= 1.20, or
 *   `max_prepared_statements = 0`): consecutive transactions of one client connection may run on
 *   different server sessions, so every statement is sent unnamed (parsed and planned each time).
 * Nothing else sent over those URLs depends on a session: settings are transaction-local
 * (`set_config(..., true)`), advisory locks are transaction-level (`pg_advisory_xact_lock`), and
 * what needs a session (LISTEN, the indexers' session advisory locks, migrations, graphile-worker)
 * uses DATABASE_DIRECT_URL (src/server/infrastructure.ts).
 */
import { createHash } from 'node:crypto';
import { Client, Pool, type ClientBase, type ClientConfig, type PoolConfig, type QueryConfig } from 'pg';
import type { PoolerMode } from '../config';

/**
 * node-postgres options for a `postgres://` URL, with libpq's meaning of `sslmode` (as psql and
 * Prisma read it): `require` encrypts without checking the certificate (with `sslrootcert`: checks
 * it was signed by that CA, like `verify-ca`), `verify-ca` checks the CA, `verify-full` also the
 * host name. node-postgres 8 (pg-connection-string 2) would otherwise take `require` and
 * `verify-ca` as `verify-full` against Node's own CAs, refusing a managed server's private CA.
 * `sslrootcert`, `sslcert` and `sslkey` are files read at connect time.
 */
export function connectionConfig(url: string): ClientConfig {
  const parsed = new URL(url);
  if (parsed.searchParams.has('sslmode') && !parsed.searchParams.has('uselibpqcompat')) {
    parsed.searchParams.set('uselibpqcompat', 'true');
  }
  return { connectionString: parsed.toString() };
}

/** The host and port of a URL, never its credentials: what logs say about a database. */
export function databaseHost(url: string): string {
  return new URL(url).host;
}

type ClientQuery = Client['query'];

/**
 * A client that sends every statement unnamed: a name given (Laurel's or a library's, such as
 * rate-limiter-flexible's) is dropped. For connections through a transaction-mode pooler, where a
 * statement prepared in one transaction is not there in the next (`prepared statement "…" does not
 * exist`), or is there twice (`… already exists`).
 */
class UnnamedStatementsClient extends Client {}
UnnamedStatementsClient.prototype.query = function (this: Client, config: unknown, ...rest: unknown[]) {
  // A submittable (a cursor, a COPY stream) is passed on as it is.
  const named =
    typeof config === 'object' &&
    config !== null &&
    'name' in config &&
    config.name !== undefined &&
    !('submit' in config);
  const sent = named ? { ...(config as Record<string, unknown>), name: undefined } : config;
  return (Client.prototype.query as (...args: unknown[]) => unknown).call(this, sent, ...rest);
} as ClientQuery;

/**
 * How long a pooled connection may stay idle before it is closed. node-postgres closes them after
 * 10 s by default: after every quiet spell longer than that, the next burst of requests opens its
 * connections again (SCRAM authentication, a new server process with cold caches, every named
 * statement prepared again), which makes the slowest answers of `npm run bench:flow`. A process
 * that stays quiet for this long gives them back.
 */
const IDLE_CONNECTION_MS = 5 * 60_000;

/** Bounds of every statement of a pool's connections, in ms (0: without bound). */
export interface StatementLimits {
  /** How long it waits for a lock another session holds (PostgreSQL's lock_timeout): then 55P03. */
  lockTimeoutMs: number;
  /** How long it may take, its waits included (statement_timeout): then 57014. */
  statementTimeoutMs: number;
}

/**
 * A pool over `url`; behind a transaction-mode pooler its statements go unnamed (see PoolerMode).
 * With `limits`, set as each connection opens (before its first statement), a statement that waits
 * on a lock an operator or a migration holds, or that runs too long, fails, which answers 503, and
 * gives its connection back: it blocks what needs it, not the whole pool. A transaction-mode
 * pooler would keep the settings on a server connection that other clients then get: there they
 * are the role's to set (docs/production-database.md).
 */
export function createPool(
  url: string,
  options: PoolConfig & { pooler?: PoolerMode; limits?: StatementLimits } = {},
): Pool {
  const { pooler = 'session', limits, ...poolOptions } = options;
  const settings = [
    limits?.lockTimeoutMs ? `SET lock_timeout = ${Math.floor(limits.lockTimeoutMs)}` : '',
    limits?.statementTimeoutMs ? `SET statement_timeout = ${Math.floor(limits.statementTimeoutMs)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return new Pool({
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    ...poolOptions,
    ...connectionConfig(url),
    ...(pooler === 'transaction' ? { Client: UnnamedStatementsClient } : {}),
    // Set before the pool hands the connection out (a failure fails the statement it was opened
    // for), so that statement never queues behind it on the connection. Not as startup
    // parameters: a session-mode PgBouncer refuses those it does not know.
    ...(pooler === 'session' && settings
      ? {
          onConnect: async (client: ClientBase) => {
            await client.query(settings);
          },
        }
      : {}),
  });
}

/** The name of each statement text prepared with prepared(), made once. */
const preparedNames = new Map<string, string>();

/**
 * `text` as a statement prepared by name on the connection that runs it: parsed and planned once
 * per connection, then run with PostgreSQL's cached plan, instead of parsed and planned on every
 * run. The name is derived from the text (one text, one name, as node-postgres requires): for
 * statements too many, or too generated, to name by hand (the indexer's); the hot statements of
 * requests keep the names operators meet in a pooler's errors (docs/production-database.md).
 * Behind a transaction-mode pooler, the pool sends it unnamed (createPool).
 */
export function prepared(text: string, values: unknown[]): QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `laurel-${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return { name, text, values };
}
