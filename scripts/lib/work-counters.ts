import { JsonRpcProvider } from 'ethers';
import pg from 'pg';
import { PooledJsonRpcProvider } from '../../src/chain/pooled-provider';

/** What a benchmark phase asked of the node and the database, counted in this process. */
export interface WorkCounts {
  /** JSON-RPC calls (a batch counts each call in it). */
  rpcCalls: number;
  /** HTTP requests those calls went out in (a batch is one). */
  rpcRequests: number;
  /** SQL statements sent by node-postgres (Prisma's adapter and the pool alike). */
  sqlStatements: number;
}

const totals: WorkCounts = { rpcCalls: 0, rpcRequests: 0, sqlStatements: 0 };
let installed = false;

/**
 * Wraps, once, the doors every RPC call and SQL statement of this process goes through (the
 * `_send` of ethers' JsonRpcProvider, which the baselines use, and of Laurel's provider, which
 * overrides it; pg's Client.query), counting as they pass. For benchmarks only.
 */
function install(): void {
  if (installed) return;
  installed = true;
  for (const provider of [JsonRpcProvider.prototype, PooledJsonRpcProvider.prototype]) {
    const send = provider._send;
    provider._send = function (this: JsonRpcProvider, payload) {
      totals.rpcRequests += 1;
      totals.rpcCalls += Array.isArray(payload) ? payload.length : 1;
      return send.call(this, payload);
    };
  }
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as { query: (...args: unknown[]) => unknown }).query = function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    totals.sqlStatements += 1;
    return query.apply(this, args);
  };
}

/** Starts counting; `stop()` gives what was counted since. */
export function startWorkCounters(): { stop(): WorkCounts } {
  install();
  const start = { ...totals };
  return {
    stop: () => ({
      rpcCalls: totals.rpcCalls - start.rpcCalls,
      rpcRequests: totals.rpcRequests - start.rpcRequests,
      sqlStatements: totals.sqlStatements - start.sqlStatements,
    }),
  };
}
