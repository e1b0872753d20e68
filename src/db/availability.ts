import { DatabaseError } from 'pg';

/**
 * Whether an error means the database cannot serve the statement now, whatever the statement: it
 * could not be reached or dropped the connection (down, restarting, shutting down), refuses writes,
 * or ran out of a resource; as opposed to a fault of the query itself. Such errors become a 503
 * `Database unavailable` instead of a 500: the same request succeeds once the database is back.
 */

/**
 * Prisma's own codes for an unreachable server, a closed connection, an exhausted pool and a
 * transaction that could not start in time (no connection came).
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
/** @prisma/adapter-pg's kinds for socket failures. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);
/**
 * SQLSTATEs of a connection the server ended or would not make: class 08 (connection exception),
 * 57P01–57P05 (shutting down, a crash, starting up, the database dropped, the idle-session
 * timeout), 53300 (too many connections), 25P03 (the idle-in-transaction timeout), class 28 (the
 * credentials refused: a password rotated before Laurel's settings, pg_hba.conf), 3D000 (no
 * database of that name: renamed during maintenance).
 */
const CONNECTION_SQLSTATE = /^(?:08[0-9A-Z]{3}|28[0-9A-Z]{3}|57P0[1-5]|53300|25P03|3D000)$/;
/**
 * SQLSTATEs of a server that answers and refuses the statement for its own state: 25006 (read-only:
 * a standby after a failover, or default_transaction_read_only, which managed databases set when
 * their disk fills), class 53 (insufficient resources: disk full, out of memory), 57000 and 57014
 * (an operator's intervention, a statement cancelled or timed out by the server's settings), 55P03
 * (a lock its lock_timeout gave up on), class 58 (I/O), XX001 and XX002 (a table or an index it
 * found corrupted).
 */
const REFUSED_FOR_STATE_SQLSTATE = /^(?:53[0-9A-Z]{3}|58[0-9A-Z]{3}|25006|57000|57014|55P03|XX001|XX002)$/;
/**
 * node-postgres reports a lost connection or a pool timeout with these messages only; a database
 * closed to connections (ALLOW_CONNECTIONS false) answers SQLSTATE 55000, a class shared with faults
 * of the query, so by its message.
 */
const PG_MESSAGES =
  /Connection terminated|connection.*(?:closed|ended)|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server|is not currently accepting connections/i;

/**
 * Whether node-postgres lost (or could not get) its connection, by its message only: unlike
 * isDatabaseUnavailable, never true for a socket error of something else (an RPC node's fetch).
 */
export function isConnectionLost(error: unknown): boolean {
  return error instanceof Error && PG_MESSAGES.test(error.message);
}

interface ErrorLike {
  code?: unknown;
  originalCode?: unknown;
  originalMessage?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
}

/** The SQLSTATE an error carries: its own code, or the driver's original one under Prisma's. */
function sqlStateOf(error: ErrorLike): string | undefined {
  if (typeof error.originalCode === 'string') return error.originalCode;
  return typeof error.code === 'string' ? error.code : undefined;
}

function isUnavailableSignal(error: ErrorLike): boolean {
  const code = typeof error.code === 'string' ? error.code : undefined;
  const sqlState = sqlStateOf(error);
  return (
    (code !== undefined && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code))) ||
    (sqlState !== undefined &&
      (CONNECTION_SQLSTATE.test(sqlState) || REFUSED_FOR_STATE_SQLSTATE.test(sqlState))) ||
    (typeof error.kind === 'string' && ADAPTER_KINDS.has(error.kind)) ||
    (typeof error.message === 'string' && PG_MESSAGES.test(error.message))
  );
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseUnavailableReason(error) !== null;
}

/**
 * Why the database cannot serve, in its own words (the error, or the cause, that says so), for an
 * operator's log: a database that answers but refuses writes looks up to everything else. Null
 * when isDatabaseUnavailable is false.
 */
export function databaseUnavailableReason(error: unknown): string | null {
  const signal = unavailableSignalIn(error);
  return signal ? reasonOf(signal) : null;
}

/**
 * Whether the database answered and refuses writes: read-only (25006) or its disk full (53100).
 * Reads still work, so what a read only records on the side (a key's last use, a request budget's
 * count) gives way instead of failing the read.
 */
export function databaseRefusesWrites(error: unknown): boolean {
  const signal = unavailableSignalIn(error);
  const sqlState = signal ? sqlStateOf(signal) : undefined;
  return sqlState === '25006' || sqlState === '53100';
}

/** The error, or the cause under Prisma's or the adapter's wrapping, that says the database cannot serve. */
function unavailableSignalIn(error: unknown): ErrorLike | null {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const candidate = current as ErrorLike;
    if (isUnavailableSignal(candidate)) return candidate;
    pending.push(candidate.cause, candidate.meta?.driverAdapterError?.cause);
  }
  return null;
}

function reasonOf(error: ErrorLike): string {
  const sqlState = sqlStateOf(error);
  const message = typeof error.originalMessage === 'string' ? error.originalMessage : error.message;
  const text = typeof message === 'string' && message.trim() ? message.trim().split('\n')[0]! : 'no message';
  return sqlState !== undefined ? `${sqlState}: ${text}` : text;
}

/**
 * Whether PostgreSQL refused a statement for the values in it (SQLSTATE classes 22 data exception,
 * 23 integrity constraint, 54 program limit such as an index entry too large), not for the
 * database's state: the same rows fail again, whereas rows sent beside them are fine. Batched
 * writes use it to tell a row to isolate from an outage to wait out.
 */
export function isRefusedForItsData(error: unknown): error is DatabaseError {
  return error instanceof DatabaseError && /^(22|23|54)/.test(error.code ?? '');
}

/**
 * Whether PostgreSQL answered and refused a statement for the database's own state (read-only, out
 * of a resource: REFUSED_FOR_STATE_SQLSTATE), not for the statement or a lost connection: the same
 * statement, sent again, fails the same way until an operator or the server changes that state.
 */
export function isRefusedForItsState(error: unknown): error is DatabaseError {
  return error instanceof DatabaseError && REFUSED_FOR_STATE_SQLSTATE.test(error.code ?? '');
}
