import { DatabaseError } from 'pg';

/**
 * Whether an error means PostgreSQL could not be reached or dropped the connection (down,
 * restarting, shutting down), as opposed to a fault of the query itself. Such errors become a 503
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
/** SQLSTATEs: admin/crash shutdown, starting up, too many connections; class 08 is "connection exception". */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
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
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
}

function isUnavailableSignal(error: ErrorLike): boolean {
  const code = typeof error.code === 'string' ? error.code : undefined;
  const sqlState = typeof error.originalCode === 'string' ? error.originalCode : code;
  return (
    (code !== undefined && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code))) ||
    (sqlState !== undefined && (SQLSTATES.has(sqlState) || /^08[0-9A-Z]{3}$/.test(sqlState))) ||
    (typeof error.kind === 'string' && ADAPTER_KINDS.has(error.kind)) ||
    (typeof error.message === 'string' && PG_MESSAGES.test(error.message))
  );
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const candidate = current as ErrorLike;
    if (isUnavailableSignal(candidate)) return true;
    pending.push(candidate.cause, candidate.meta?.driverAdapterError?.cause);
  }
  return false;
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
