import { existsSync, readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_OUTBOUND_AGENT } from './outbound-https';
import { DEFAULT_CHAIN_TEXT_LIMITS, type ChainTextLimits } from './stored-text';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

/** One RPC provider of a chain: a URL, or a URL with its own request rate. */
const rpcEndpointSchema = z
  .preprocess(
    (value) => (typeof value === 'string' ? { url: value } : value),
    z
      .object({
        url: z.string().url(),
        maxRequestsPerSecond: z.number().positive().optional(),
      })
      .strict(),
  )
  .describe('a URL, or `{url, maxRequestsPerSecond}`');

/** The fields of a chain entry, as CHAINS gives them (docs/configuration.md lists them). */
export const chainEntrySchema = z.object({
  name: z
    .string()
    .min(1)
    .max(255)
    .describe('the `chain` value of requests; unique (`local` is reserved when `LOCAL_CHAIN=on`)'),
  chainId: z
    .number()
    .int()
    .positive()
    .describe('the chain id; `execute` without `chain` finds the chain of a signed transaction by it'),
  rpcUrl: z
    .string()
    .url()
    .optional()
    .describe(
      'JSON-RPC URL of a node, for a chain with one provider (give `rpcUrl` or `rpcUrls`); it often embeds a provider key, so logs show it as `[redacted]`',
    ),
  rpcUrls: z
    .array(rpcEndpointSchema)
    .min(1, 'give at least one RPC URL')
    .optional()
    .describe(
      "the chain's JSON-RPC providers: calls are spread over the healthy ones and fail over on errors, timeouts and throttling; signed transactions go to all of them. `/ready` and logs name them `<chain>#1`, `<chain>#2`… in this order, never by URL (see docs/providers.md)",
    ),
  explorerUrl: z
    .string()
    .url()
    .describe('block explorer: answers give `blockExplorerUrl` = `<explorerUrl>/tx/<hash>`'),
  factoryAddress: z
    .string()
    .regex(addressPattern, 'must be a 0x-prefixed address')
    .describe("Laurel's AppFactory on that chain (`npm run contracts:deploy` prints the entry)"),
  confirmations: z
    .number()
    .int()
    .min(1)
    .default(1)
    .describe('confirmations `execute-and-wait` waits for; the indexer reads only blocks that have them'),
  startBlock: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("first block the indexer reads, e.g. the factory's deployment block; 0 when absent"),
  finalityDepth: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'blocks below the head after which a block counts as final: the window of blocks a reorganisation may replace (see docs/reorgs.md); default by chain id: 64 on Ethereum and its testnets, 256 on Polygon PoS, 300 on OP-stack and Arbitrum chains, 64 on local chains (31337, 1337), 256 elsewhere',
    ),
  finalizedTag: z
    .boolean()
    .optional()
    .describe(
      "whether a block the node calls `finalized` (`eth_getBlockByNumber('finalized')`) counts as final before it is `finalityDepth` deep; default `true`, `false` for a node whose tag is not to be trusted",
    ),
  maxRequestsPerSecond: z
    .number()
    .positive()
    .optional()
    .describe(
      "calls per second Laurel sends to each provider of the chain at most (a JSON-RPC batch counts each call; a provider's own `maxRequestsPerSecond` overrides it); absent: no limit of its own, a provider that throttles is still backed off",
    ),
  maxProviderLagBlocks: z
    .number()
    .int()
    .min(0)
    .default(5)
    .describe(
      "a provider whose head is more than this many blocks behind the others is not asked for the head, nor for anything read at 'latest' or 'pending' (receipts, nonces, estimates); it still serves older blocks it has. Raise it on chains with sub-second blocks",
    ),
  maxFeePerGasCap: z
    .string()
    .regex(/^\d+$/, 'must be a decimal integer string (wei)')
    .optional()
    .describe(
      'upper bound of the `maxFeePerGas` (and gas price) of built transactions, in wei; absent: no cap',
    ),
});

/** A chain entry checked (one URL or more, none twice) and with every provider's effective rate. */
export const chainConfigSchema = chainEntrySchema
  .superRefine((chain, ctx) => {
    if (chain.rpcUrl === undefined && chain.rpcUrls === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['rpcUrls'],
        message: 'give rpcUrls (one or more RPC URLs) or rpcUrl',
      });
    }
    if (chain.rpcUrl !== undefined && chain.rpcUrls !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['rpcUrl'], message: 'give either rpcUrl or rpcUrls, not both' });
    }
    const urls = (chain.rpcUrls ?? []).map((endpoint) => endpoint.url);
    urls.forEach((url, index) => {
      if (urls.indexOf(url) !== index) {
        ctx.addIssue({ code: 'custom', path: ['rpcUrls', index], message: 'the same URL is given twice' });
      }
    });
  })
  .transform(({ rpcUrl, rpcUrls, ...chain }) => ({
    ...chain,
    rpcUrls: (rpcUrls ?? [{ url: rpcUrl! }]).map((endpoint) => ({
      url: endpoint.url,
      maxRequestsPerSecond: endpoint.maxRequestsPerSecond ?? chain.maxRequestsPerSecond,
    })),
  }));
/** A chain entry as CHAINS gives it (rpcUrl or rpcUrls, defaults left out). */
export type ChainEntry = z.input<typeof chainConfigSchema>;
export type ChainConfig = z.infer<typeof chainConfigSchema>;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL');

/** A comma-separated list: its items trimmed, empty ones dropped. */
const commaSeparated = () =>
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

/**
 * Whether calls to hosts users name may reach non-public addresses (`auto`: in a development setup
 * that listens on loopback only, where no one else can name them).
 */
const privateNetworksAllowance = (calls: string) =>
  z
    .enum(['true', 'false', 'auto'])
    .default('auto')
    .describe(
      `\`true\`: ${calls} may reach loopback, private and link-local addresses (tests); \`auto\`: only in a development setup (the local chain and no \`CHAINS\`) listening on loopback (\`HOST\` 127.0.0.1, ::1 or localhost)`,
    );

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

/** What DATABASE_URL leads to: see DATABASE_POOLER and src/db/connection.ts. */
export type PoolerMode = 'session' | 'transaction';

/**
 * Jobs a worker process runs at once (WORKER_CONCURRENCY). Laurel's jobs mostly wait on the network
 * (webhook calls of up to 5 s, receipts asked of a node): a few slow receivers must not hold every
 * job of the process, and deliveries are bound by round trips, not CPU (`npm run bench:webhooks`).
 * The job worker's pool grows to this + 2 connections.
 */
export const DEFAULT_WORKER_CONCURRENCY = 32;

/**
 * Every environment variable Laurel reads. Each `.describe()` is its documentation:
 * docs/configuration.md is generated from them (`npm run docs:config`), and a test fails when it drifts.
 */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000).describe('HTTP port (`0`: any free port)'),
  HOST: z.string().min(1).default('127.0.0.1').describe('interface to listen on (`0.0.0.0` in a container)'),
  DATABASE_URL: postgresUrl
    .optional()
    .describe(
      'PostgreSQL URL (may be a pooler: `DATABASE_POOLER`; TLS: `sslmode`, `sslrootcert` as libpq reads them). Unset: an embedded PostgreSQL is started under `DATA_DIR`',
    ),
  DATABASE_DIRECT_URL: postgresUrl
    .optional()
    .describe(
      "a session connection to the same database, like Prisma's `directUrl`: migrations, `LISTEN` (index changes, transaction statuses, the job worker), the indexers' session advisory locks and graphile-worker use it. Set it when `DATABASE_URL` goes through a transaction-mode pooler (PgBouncer). Default: `DATABASE_URL`",
    ),
  DATABASE_POOLER: z
    .enum(['auto', 'session', 'transaction'])
    .default('auto')
    .describe(
      'what `DATABASE_URL` and `DATABASE_READ_URL` lead to. `transaction`: a transaction-mode pooler that does not keep prepared statements (PgBouncer up to 1.20, or `max_prepared_statements = 0`): every statement is sent unnamed. `session`: a server, a session-mode pooler, or PgBouncer >= 1.21 with `max_prepared_statements` > 0: hot statements are prepared once per connection. `auto`: `transaction` when `DATABASE_DIRECT_URL` is set to another URL, else `session`',
    ),
  DATABASE_READ_URL: commaSeparated()
    .pipe(z.array(postgresUrl))
    .optional()
    .describe(
      'read replicas (streaming standbys of the primary), comma-separated: profiles, leaderboards and the index listings are read from one that has replayed every index commit the process knows of, else from the primary (docs/production-database.md). Needs `DATABASE_URL`',
    ),
  DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .describe(
      "folder of the embedded PostgreSQL cluster, the local chain's state, the generated webhook key and the development CA",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('least severe log level written; `debug` shows every step, including routine job retries'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe('`auto`: readable lines (pino-pretty) on a terminal, JSON lines otherwise'),
  LOCAL_CHAIN: z
    .enum(['auto', 'on', 'off'])
    .default('auto')
    .describe(
      '`auto`: start the embedded anvil chain `local` only when no chain is configured; `on`: always; `off`: never',
    ),
  CHAINS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('path of a JSON file holding the array of chain entries (used when `CHAINS` is unset)'),
  CHAINS: z
    .string()
    .min(1)
    .optional()
    .describe('the chain entries as a JSON array (see [Chain entries](#chain-entries))'),
  RPC_TIMEOUT_MS: positiveInt(10_000).describe(
    'deadline of every RPC call; a node that does not answer gives a 503 naming the chain',
  ),
  API_KEY_CHALLENGE_TTL_SECONDS: positiveInt(600).describe('lifetime of a key challenge'),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60).describe("window of a wallet's request budget"),
  RATE_LIMIT_MAX_REQUESTS: positiveInt(600).describe(
    'requests per wallet (all its keys) and window, shared by all Laurel processes on one database',
  ),
  API_KEYS_PER_WALLET: positiveInt(20).describe('active (unrevoked) API keys a wallet may hold'),
  KEY_REQUESTS_PER_CLIENT: positiveInt(30).describe(
    '`/key/challenge` + `/key/verify` calls per minute from one client address',
  ),
  KEY_CHALLENGES_PER_WALLET: positiveInt(10).describe('challenges per minute for one wallet, whoever asks'),
  GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT: positiveInt(60).describe(
    '`/graphql` requests per minute from one client address without a valid `X-API-KEY` (none, or a wrong one; introspection included), shared by all Laurel processes on one database; over it: 429 `RATE_LIMITED`',
  ),
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
  NONCE_RESERVATION_TTL_SECONDS: positiveInt(120).describe(
    'how long a nonce handed to a built transaction stays reserved if it is never broadcast',
  ),
  EXECUTE_WAIT_TIMEOUT_SECONDS: positiveInt(30).describe(
    'how long `execute-and-wait` waits for the receipt before answering `Timeout`',
  ),
  TRANSACTION_DROP_AFTER_SECONDS: positiveInt(600).describe(
    'a recorded, unmined transaction the node has not known for this long is marked dropped and its nonce freed',
  ),
  PERMIT_DEADLINE_SECONDS: positiveInt(3600).describe(
    'lifetime of permit data (`deadline` = now + this, in Unix seconds)',
  ),
  WORKER_CONCURRENCY: positiveInt(DEFAULT_WORKER_CONCURRENCY).describe(
    'background jobs a worker process runs at once; they mostly wait on the network (webhook calls, receipts), so it is well above the core count (`npm run bench:webhooks`)',
  ),
  LAUREL_ROLES: commaSeparated()
    .default('api,worker,indexer')
    .pipe(
      z
        .array(
          z.enum(['api', 'worker', 'indexer'], { message: "each role must be 'api', 'worker' or 'indexer'" }),
        )
        .min(1, 'name at least one role'),
    )
    .describe(
      'what this process runs: `api` (HTTP: REST, GraphQL, docs), `worker` (graphile-worker: receipts, webhook deliveries, housekeeping), `indexer` (the chain indexers)',
    ),
  SHUTDOWN_GRACE_SECONDS: positiveInt(10).describe(
    'on SIGTERM/SIGINT, how long requests and jobs in flight may take before the process stops anyway',
  ),
  DATABASE_POOL_SIZE: positiveInt(10).describe(
    "connections of the process's own pool (requests, rate limits, indexer)",
  ),
  WORKER_POOL_SIZE: positiveInt(10).describe(
    "connections of the job worker's pool; raised to `WORKER_CONCURRENCY` + 2 when smaller",
  ),
  WEBHOOK_SECRET_ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)')
    .optional()
    .describe(
      'key encrypting the stored webhook secrets; unset: generated into `DATA_DIR` on the first start. Several processes need the same one',
    ),
  WEBHOOK_SIGNATURE_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
    .default('x-laurel-signature')
    .transform((name) => name.toLowerCase())
    .describe(
      "name of the body-HMAC header of webhook calls (another service's name, e.g. `x-openformat-signature`, lets its receivers work unchanged)",
    ),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: privateNetworksAllowance('webhook calls'),
  WEBHOOKS_PER_ACCOUNT: positiveInt(20).describe(
    'webhooks an account may have; `POST /webhook` past it answers 409 `webhook limit reached` (each webhook gets a call per event)',
  ),
  WEBHOOK_LOG_RETENTION_DAYS: positiveInt(30).describe(
    "days webhook events are kept with their deliveries and logged attempts (receivers' answers included); `maintenance__prune` deletes older ones once none of their deliveries is pending",
  ),
  OUTBOUND_IDLE_SOCKET_MS: positiveInt(DEFAULT_OUTBOUND_AGENT.idleSocketMs).describe(
    'a kept-alive connection of webhook calls or badge metadata fetches idle this long is closed',
  ),
  OUTBOUND_MAX_SOCKETS: positiveInt(DEFAULT_OUTBOUND_AGENT.maxSockets).describe(
    'connections webhook calls (and, apart, badge metadata fetches) hold open at most over every host; a call past it waits for one within its deadline, and idle connections of other hosts are closed to make room',
  ),
  WEBHOOK_RETRY_BASE_MS: positiveInt(60_000).describe(
    'first retry delay of a failed webhook call; each next one is 4 times longer (±25 % jitter)',
  ),
  WEBHOOK_DELIVERY_LEASE_SECONDS: positiveInt(30).describe(
    'a delivery job locked longer than this, or a first attempt left to the process that recorded the event and not recorded within it, is taken to have lost its process and is run again by a job',
  ),
  WEBHOOK_FIRST_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(0)
    .default(32)
    .describe(
      "first attempts of webhook deliveries a process makes itself at once, right after recording their event (the API's `execute-and-wait`, the worker's receipt jobs); past it, and with `0`, each delivery's first attempt is a job",
    ),
  BADGE_METADATA_IPFS_GATEWAY: z
    .string()
    .url()
    .refine((url) => url.startsWith('https://'), 'must be an https:// URL')
    .default('https://ipfs.io/ipfs/')
    .describe(
      'HTTPS gateway through which `ipfs://` metadata URIs are fetched: `ipfs://<cid>/<path>` is read from `<gateway><cid>/<path>` (a trailing `/` is added when missing)',
    ),
  BADGE_METADATA_TIMEOUT_MS: positiveInt(5_000).describe(
    "deadline of one badge metadata fetch (every redirect and the body); a slower host's fetch fails and is retried",
  ),
  BADGE_METADATA_MAX_BYTES: positiveInt(64 * 1024).describe(
    'largest badge metadata document accepted; the fetch of a larger one stops at this size and fails',
  ),
  BADGE_METADATA_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(3)
    .describe(
      'retries of a badge metadata fetch that failed for a reason that may pass (timeout, connection error, HTTP 408, 429 or 5xx), each 4 times later than the one before; other failures are not retried until the next refresh',
    ),
  BADGE_METADATA_RETRY_BASE_MS: positiveInt(30_000).describe(
    'delay before the first retry of a failed badge metadata fetch (±25 % jitter)',
  ),
  BADGE_METADATA_REFRESH_SECONDS: positiveInt(86_400).describe(
    'age after which the metadata of a badge with an `https://` URI, or a failed fetch of any, is fetched again (`ipfs://` content never changes); the badge contract emits no ERC-4906 events, and its base URI never changes',
  ),
  BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: privateNetworksAllowance('badge metadata fetches'),
  BADGE_METADATA_ALLOWED_ADDRESSES: commaSeparated()
    .optional()
    .describe(
      'addresses or CIDR ranges (comma-separated) that badge metadata fetches may reach even when private networks are not allowed, e.g. an IPFS gateway of your own network',
    ),
  INDEXER_POLL_INTERVAL_MS: positiveInt(1000).describe('how often a caught-up indexer looks for new blocks'),
  INDEXER_MAX_BLOCK_RANGE: positiveInt(2000).describe('largest block range asked of `eth_getLogs` at once'),
  // At most 2048: base URIs are keys of b-tree indexes, whose entries PostgreSQL bounds at about 2.7 KB.
  CHAIN_TEXT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(2048)
    .default(DEFAULT_CHAIN_TEXT_LIMITS.maxBytes)
    .describe(
      'UTF-8 bytes kept of each name, symbol or base URI read from the chain (at most 2048); a longer one is cut at a character boundary, its bytes kept beside it (see docs/api-notes.md#names-from-the-chain)',
    ),
  CHAIN_TEXT_RAW_MAX_BYTES: positiveInt(DEFAULT_CHAIN_TEXT_LIMITS.rawMaxBytes).describe(
    'bytes kept of the on-chain value of a name, symbol or base URI that is stored altered (not valid UTF-8, holding NUL, or cut); also of the data of an unindexable event',
  ),
  INDEXER_UNINDEXABLE_RETENTION_DAYS: positiveInt(30).describe(
    'days the record of an event the indexer could not write (`unindexable_events`) is kept',
  ),
  READ_CACHE_MB: z.coerce
    .number()
    .int()
    .min(0)
    .default(64)
    .describe(
      'memory of each API process for cached profiles, leaderboards and the per-day parts of leaderboard windows (an estimate of their size), dropped when their index rows change; `0`: no cache',
    ),
  SUBSCRIPTION_PUSH_INTERVAL_MS: positiveInt(1000).describe(
    'GraphQL subscriptions: the shortest time between two pushes of one `leaderboardChanged` or `profileChanged` subscription (changes within it are sent together, as the page or profile then is)',
  ),
  SUBSCRIPTIONS_PER_KEY: positiveInt(20).describe(
    'GraphQL subscriptions: how many an API key may hold open at once in one API process (over it, a new one is refused with `TOO_MANY_SUBSCRIPTIONS`)',
  ),
  WEBSOCKETS_PER_KEY: positiveInt(20).describe(
    'GraphQL subscriptions: WebSocket connections one API key may hold open at once in one API process, within `HTTP_MAX_CONNECTIONS` (over it, a new one is closed with 4429)',
  ),
  WEBSOCKET_PING_INTERVAL_MS: positiveInt(12_000).describe(
    'GraphQL subscriptions: every WebSocket is pinged this often; one that has not answered the previous ping by then is cut',
  ),
  WEBSOCKET_INIT_TIMEOUT_MS: positiveInt(3_000).describe(
    'GraphQL subscriptions: a WebSocket must send `connection_init` within this (else it is closed with 4408)',
  ),
  METRICS: z
    .enum(['on', 'off'])
    .default('on')
    .describe('`on`: Prometheus metrics (`laurel_*`) at `/metrics`; `off`: none are recorded or served'),
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe(
      'serve `/metrics` on this port (every process, whatever its roles, on `HOST`), off the API port; unset: `/metrics` on the main port, for loopback clients or with `METRICS_TOKEN`',
    ),
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe(
      'lets other clients than loopback read `/metrics` on the main port with `Authorization: Bearer <token>` (at least 16 characters)',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe(
      'an OpenTelemetry collector (OTLP over HTTP, e.g. `http://127.0.0.1:4318`): traces of HTTP, GraphQL, operations, SQL, RPC and jobs are exported to it; unset: no tracing code is loaded. The SDK reads the other `OTEL_*` variables itself',
    ),
});

export type LaurelRole = 'api' | 'worker' | 'indexer';

export interface Config {
  port: number;
  host: string;
  /** Absent: an embedded PostgreSQL is started under dataDir. */
  databaseUrl?: string;
  /** A session connection for LISTEN, migrations, advisory locks and the job worker; absent: databaseUrl. */
  databaseDirectUrl?: string;
  /** What databaseUrl (and the read URLs) lead to: whether statements may be prepared by name. */
  databasePooler: PoolerMode;
  /** Read replicas of databaseUrl (none: every read goes to databaseUrl). */
  databaseReadUrls: string[];
  dataDir: string;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** `auto`: human-readable lines on a terminal, JSON otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** 'auto' starts the local anvil chain only when no chain is configured. */
  localChain: 'auto' | 'on' | 'off';
  chains: ChainConfig[];
  rpcTimeoutMs: number;
  auth: {
    challengeTtlSeconds: number;
    /** Requests per window of a wallet, all its keys together (GraphQL: per root field). */
    rateLimit: { windowSeconds: number; maxRequests: number };
    /** Active (unrevoked) keys a wallet may hold. */
    keysPerWallet: number;
    /** /key/challenge and /key/verify calls per minute from one client address. */
    keyRequestsPerClient: number;
    /** Challenges per minute for one wallet, whoever asks. */
    challengesPerWallet: number;
    /** GraphQL requests per minute from one client address without a valid key. */
    anonymousGraphqlPerClient: number;
  };
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
  transactions: {
    nonceReservationTtlSeconds: number;
    executeWaitTimeoutSeconds: number;
    /** A recorded transaction the node has not known for this long is marked dropped (its nonce freed). */
    dropAfterSeconds: number;
    permitDeadlineSeconds: number;
  };
  workerConcurrency: number;
  /** What this process runs: the HTTP API, the job worker, the chain indexers (LAUREL_ROLES). */
  roles: ReadonlySet<LaurelRole>;
  /** On SIGTERM, how long in-flight requests and jobs may take before the process stops anyway. */
  shutdownGraceSeconds: number;
  /** Connections of the process's own pool (requests, indexer) and of the job worker's. */
  databasePoolSize: number;
  workerPoolSize: number;
  webhooks: {
    /** 32-byte AES key (base64); absent: read from, or generated into, the data folder at start. */
    secretEncryptionKey?: string;
    /** Lower-case name of the header carrying the base64 HMAC-SHA256 of the body. */
    signatureHeader: string;
    /** Allow calls to loopback, private, link-local, ... addresses (tests, local development). */
    allowPrivateNetworks: boolean;
    /** Webhooks one account may have. */
    perAccount: number;
    /** Days events, deliveries and logged attempts are kept (pending deliveries until they end). */
    retentionDays: number;
    /**
     * Trust the development CA of the data folder for webhook calls (a development setup only), so
     * that a receiver on this machine (`npm run demo`) can be verified.
     */
    trustDevelopmentCa: boolean;
    /** First retry delay; each further retry waits four times longer (with jitter). */
    retryBaseMs: number;
    /**
     * A delivery job locked longer than this is taken to have lost its worker, and is run again; a
     * first attempt left to the process that recorded the event and not recorded within it becomes a job.
     */
    deliveryLeaseSeconds: number;
    /** First attempts a process makes itself at once after recording their event (0: none, jobs only). */
    firstAttempts: number;
  };
  indexer: {
    pollIntervalMs: number;
    maxBlockRange: number;
    /** Days the record of an unindexable event is kept. */
    unindexableRetentionDays: number;
  };
  /** Bounds of names, symbols and base URIs read from the chain (src/stored-text.ts). */
  chainText: ChainTextLimits;
  /** The connections of each client that calls hosts users name (webhooks, badge metadata). */
  outbound: { idleSocketMs: number; maxSockets: number };
  badgeMetadata: {
    /** `ipfs://<path>` is fetched from `<ipfsGateway><path>`; ends with `/`. */
    ipfsGateway: string;
    timeoutMs: number;
    maxBytes: number;
    /** Retries of a fetch that failed for a reason that may pass. */
    retries: number;
    retryBaseMs: number;
    /** Age after which an `https://` document, or a failure, is fetched again. */
    refreshSeconds: number;
    allowPrivateNetworks: boolean;
    /** Reachable even when private networks are not allowed. */
    allowedAddresses: string[];
  };
  /** Bytes of profiles and leaderboards kept in memory until their chain's index changes (0: none). */
  readCacheBytes: number;
  subscriptions: {
    /** Shortest time between two pushes of one leaderboard or profile subscription. */
    pushIntervalMs: number;
    /** Subscriptions one API key may hold open at once in one process. */
    perKey: number;
    /** WebSocket connections one API key may hold open at once in one process. */
    socketsPerKey: number;
    /** How often every WebSocket is pinged; one that did not answer the previous ping is cut. */
    pingIntervalMs: number;
    /** How long a WebSocket has to send connection_init. */
    initTimeoutMs: number;
  };
  metrics: {
    enabled: boolean;
    /** A port of their own; absent: /metrics on the main port (loopback or token). */
    port?: number;
    token?: string;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function describe(error: z.ZodError, prefix = ''): string {
  return error.issues
    .map((issue) => `${prefix}${issue.path.join('.') || '(value)'}: ${issue.message}`)
    .join('; ');
}

function parseChains(env: NodeJS.ProcessEnv, cwd: string): ChainConfig[] {
  let raw: string | undefined;
  let variable: 'CHAINS' | 'CHAINS_FILE';
  if (env.CHAINS) {
    raw = env.CHAINS;
    variable = 'CHAINS';
  } else if (env.CHAINS_FILE) {
    variable = 'CHAINS_FILE';
    const file = path.resolve(cwd, env.CHAINS_FILE);
    if (!existsSync(file)) throw new ConfigError(`CHAINS_FILE: file not found: ${file}`);
    raw = readFileSync(file, 'utf8');
  } else {
    return [];
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(`${variable}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = z
    .array(chainConfigSchema)
    .superRefine((chains, ctx) => {
      const seen = new Set<string>();
      chains.forEach((chain, index) => {
        if (seen.has(chain.name)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: `duplicate chain name "${chain.name}"`,
          });
        }
        seen.add(chain.name);
      });
    })
    .safeParse(json);
  if (!parsed.success)
    throw new ConfigError(`${variable}: ${describe(parsed.error, '[')}`.replace(/\[(\d+)\./g, '[$1].'));
  return parsed.data;
}

/** Reads and validates the environment; throws a ConfigError naming the offending variable. */
export function loadConfig(rawEnv: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  // An empty variable counts as unset, as shells and orchestrators commonly write them.
  const env = Object.fromEntries(
    Object.entries(rawEnv).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${describe(parsed.error)}`);
  const e = parsed.data;
  if (!e.DATABASE_URL && (e.DATABASE_DIRECT_URL || e.DATABASE_READ_URL)) {
    throw new ConfigError(
      `Invalid configuration: ${e.DATABASE_DIRECT_URL ? 'DATABASE_DIRECT_URL' : 'DATABASE_READ_URL'}: needs DATABASE_URL (the embedded PostgreSQL has no pooler or replica)`,
    );
  }
  // One key must never be able to hold every connection of the process.
  if (e.WEBSOCKETS_PER_KEY >= e.HTTP_MAX_CONNECTIONS) {
    throw new ConfigError(
      'Invalid configuration: WEBSOCKETS_PER_KEY: must be less than HTTP_MAX_CONNECTIONS (one key cannot hold every connection)',
    );
  }
  const directUrl = e.DATABASE_DIRECT_URL ?? e.DATABASE_URL;
  const chains = parseChains(env, cwd);
  if (e.LOCAL_CHAIN === 'on' && chains.some((chain) => chain.name === 'local')) {
    throw new ConfigError('CHAINS: the name "local" is reserved for the embedded chain (LOCAL_CHAIN=on)');
  }
  // Laurel on its own local chain and nothing else: a developer's machine, not a deployment.
  const developmentSetup = chains.length === 0 && runsLocalChain(e.LOCAL_CHAIN, chains.length);
  // Reachable from elsewhere, anyone could name a private address: only an explicit `true` then.
  const allowance = (setting: 'true' | 'false' | 'auto') =>
    setting === 'auto' ? developmentSetup && isLoopbackHost(e.HOST) : setting === 'true';
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databasePooler:
      e.DATABASE_POOLER === 'auto'
        ? directUrl !== e.DATABASE_URL
          ? 'transaction'
          : 'session'
        : e.DATABASE_POOLER,
    databaseReadUrls: e.DATABASE_READ_URL ?? [],
    dataDir: path.resolve(cwd, e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    localChain: e.LOCAL_CHAIN,
    chains,
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    auth: {
      challengeTtlSeconds: e.API_KEY_CHALLENGE_TTL_SECONDS,
      rateLimit: { windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS, maxRequests: e.RATE_LIMIT_MAX_REQUESTS },
      keysPerWallet: e.API_KEYS_PER_WALLET,
      keyRequestsPerClient: e.KEY_REQUESTS_PER_CLIENT,
      challengesPerWallet: e.KEY_CHALLENGES_PER_WALLET,
      anonymousGraphqlPerClient: e.GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT,
    },
    http: {
      trustProxy: e.TRUST_PROXY,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerClient: Math.min(e.HTTP_MAX_CONNECTIONS_PER_CLIENT, e.HTTP_MAX_CONNECTIONS),
      readyCheckIntervalMs: e.READY_CHECK_INTERVAL_MS,
    },
    transactions: {
      nonceReservationTtlSeconds: e.NONCE_RESERVATION_TTL_SECONDS,
      executeWaitTimeoutSeconds: e.EXECUTE_WAIT_TIMEOUT_SECONDS,
      dropAfterSeconds: e.TRANSACTION_DROP_AFTER_SECONDS,
      permitDeadlineSeconds: e.PERMIT_DEADLINE_SECONDS,
    },
    workerConcurrency: e.WORKER_CONCURRENCY,
    roles: new Set(e.LAUREL_ROLES),
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    workerPoolSize: e.WORKER_POOL_SIZE,
    webhooks: {
      secretEncryptionKey: e.WEBHOOK_SECRET_ENCRYPTION_KEY,
      signatureHeader: e.WEBHOOK_SIGNATURE_HEADER,
      allowPrivateNetworks: allowance(e.WEBHOOK_ALLOW_PRIVATE_NETWORKS),
      perAccount: e.WEBHOOKS_PER_ACCOUNT,
      retentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
      trustDevelopmentCa: developmentSetup,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      deliveryLeaseSeconds: e.WEBHOOK_DELIVERY_LEASE_SECONDS,
      firstAttempts: e.WEBHOOK_FIRST_ATTEMPTS,
    },
    indexer: {
      pollIntervalMs: e.INDEXER_POLL_INTERVAL_MS,
      maxBlockRange: e.INDEXER_MAX_BLOCK_RANGE,
      unindexableRetentionDays: e.INDEXER_UNINDEXABLE_RETENTION_DAYS,
    },
    chainText: { maxBytes: e.CHAIN_TEXT_MAX_BYTES, rawMaxBytes: e.CHAIN_TEXT_RAW_MAX_BYTES },
    outbound: { idleSocketMs: e.OUTBOUND_IDLE_SOCKET_MS, maxSockets: e.OUTBOUND_MAX_SOCKETS },
    badgeMetadata: {
      ipfsGateway: e.BADGE_METADATA_IPFS_GATEWAY.replace(/\/?$/, '/'),
      timeoutMs: e.BADGE_METADATA_TIMEOUT_MS,
      maxBytes: e.BADGE_METADATA_MAX_BYTES,
      retries: e.BADGE_METADATA_RETRIES,
      retryBaseMs: e.BADGE_METADATA_RETRY_BASE_MS,
      refreshSeconds: e.BADGE_METADATA_REFRESH_SECONDS,
      allowPrivateNetworks: allowance(e.BADGE_METADATA_ALLOW_PRIVATE_NETWORKS),
      allowedAddresses: e.BADGE_METADATA_ALLOWED_ADDRESSES ?? [],
    },
    readCacheBytes: e.READ_CACHE_MB * 1024 * 1024,
    subscriptions: {
      pushIntervalMs: e.SUBSCRIPTION_PUSH_INTERVAL_MS,
      perKey: e.SUBSCRIPTIONS_PER_KEY,
      socketsPerKey: e.WEBSOCKETS_PER_KEY,
      pingIntervalMs: e.WEBSOCKET_PING_INTERVAL_MS,
      initTimeoutMs: e.WEBSOCKET_INIT_TIMEOUT_MS,
    },
    metrics: { enabled: e.METRICS === 'on', port: e.METRICS_PORT, token: e.METRICS_TOKEN },
  };
}

/** Whether the embedded anvil chain named `local` runs: `on`, or `auto` with no chain configured. */
function runsLocalChain(localChain: Config['localChain'], configuredChains: number): boolean {
  return localChain === 'on' || (localChain === 'auto' && configuredChains === 0);
}

/** Whether the embedded anvil chain named `local` runs. */
export function wantsLocalChain(config: Config): boolean {
  return runsLocalChain(config.localChain, config.chains.length);
}
