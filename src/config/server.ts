/** The HTTP server: where it listens, its timeouts and its connection bounds. */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { positiveInt, type Parsed } from './values';

export const serverVariables = {
  PORT: z.coerce.number().int().min(0).max(65535).default(4000).describe('HTTP port (`0`: any free port)'),
  HOST: z.string().min(1).default('127.0.0.1').describe('interface to listen on (`0.0.0.0` in a container)'),
  TRUST_PROXY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Express `trust proxy` (e.g. `loopback`, `1`, a subnet): whose `X-Forwarded-For` gives the client address',
    ),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt(30_000).describe('a request must be received whole within this'),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt(10_000).describe(
    'its headers within this; a connection that sends nothing at all is closed after this too',
  ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000).describe('idle keep-alive sockets are closed after this'),
  HTTP_MAX_CONNECTIONS: positiveInt(1_000).describe('open connections at most'),
  HTTP_MAX_CONNECTIONS_PER_CLIENT: positiveInt(100).describe(
    "open connections from one client address at most (WebSockets included; capped at `HTTP_MAX_CONNECTIONS`): more are closed at once. It counts the socket's peer, so behind a reverse proxy it caps the proxy: raise it there, and limit clients at the proxy",
  ),
  READY_CHECK_INTERVAL_MS: positiveInt(1_000).describe(
    '`GET /ready` asks the database and each RPC provider at most once per this interval: callers within it share one check',
  ),
};

export interface ServerConfig {
  port: number;
  host: string;
  http: {
    /** Express `trust proxy`: which proxies' X-Forwarded-For to believe for the client address. */
    trustProxy?: string;
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
    /** Open connections from one client address (the socket's peer) at most. */
    maxConnectionsPerClient: number;
    /** /ready's dependency checks at most once per this interval, shared by its callers. */
    readyCheckIntervalMs: number;
  };
}

export function serverConfig(e: Parsed<typeof serverVariables>): ServerConfig {
  return {
    port: e.PORT,
    host: e.HOST,
    http: {
      trustProxy: e.TRUST_PROXY,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerClient: Math.min(e.HTTP_MAX_CONNECTIONS_PER_CLIENT, e.HTTP_MAX_CONNECTIONS),
      readyCheckIntervalMs: e.READY_CHECK_INTERVAL_MS,
    },
  };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether a host name or address (HOST, or a socket's peer) is loopback: only this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
