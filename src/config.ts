import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

/** One RPC provider of a chain: a URL, or a URL with its own request rate. */
const rpcEndpointSchema = z.preprocess(
  (value) => (typeof value === 'string' ? { url: value } : value),
  z
    .object({
      url: z.string().url().describe('The JSON-RPC URL (http or https; it may carry an API key)'),
      maxRequestsPerSecond: z
        .number()
        .positive()
        .optional()
        .describe("This provider's request budget; overrides the chain's maxRequestsPerSecond"),
    })
    .strict(),
);

export const chainConfigSchema = z
  .object({
    name: z.string().min(1).max(255),
    chainId: z.number().int().positive(),
    rpcUrl: z
      .string()
      .url()
      .optional()
      .describe('The JSON-RPC URL of a chain served by one provider (give rpcUrl or rpcUrls)'),
    rpcUrls: z
      .array(rpcEndpointSchema)
      .min(1, 'give at least one RPC URL')
      .optional()
      .describe(
        "The chain's JSON-RPC providers, each a URL or {url, maxRequestsPerSecond}: calls are spread " +
          'over the healthy ones and fail over on errors, timeouts and throttling; a signed transaction ' +
          'is sent to every one. Logs and /ready name them `<chain>#1`, `<chain>#2`... in this order, never by URL',
      ),
    explorerUrl: z.string().url(),
    factoryAddress: z.string().regex(addressPattern, 'must be a 0x-prefixed address'),
    confirmations: z.number().int().min(1).default(1),
    /** First block the indexer reads (e.g. the factory's deployment block); 0 when absent. */
    startBlock: z.number().int().min(0).optional(),
    maxRequestsPerSecond: z
      .number()
      .positive()
      .optional()
      .describe(
        'Requests per second Laurel sends to each provider of the chain at most (a JSON-RPC batch counts ' +
          'each call); absent: no limit of its own (a provider that throttles is still backed off)',
      ),
    maxProviderLagBlocks: z
      .number()
      .int()
      .min(0)
      .default(5)
      .describe(
        'A provider whose head is more than this many blocks behind the others is not asked for the head, ' +
          "nor for anything read at 'latest' or 'pending' (receipts, nonces, estimates); it still serves " +
          'older blocks it has. Raise it on chains with sub-second blocks',
      ),
    maxFeePerGasCap: z
      .string()
      .regex(/^\d+$/, 'must be a decimal integer string (wei)')
      .optional()
      .describe(
        'Upper bound of the maxFeePerGas (and gasPrice) of the transactions Laurel builds, in wei as a ' +
          'decimal string; absent: no cap',
      ),
  })
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
    /** Every provider, with its effective request rate. */
    rpcUrls: (rpcUrls ?? [{ url: rpcUrl! }]).map((endpoint) => ({
      url: endpoint.url,
      maxRequestsPerSecond: endpoint.maxRequestsPerSecond ?? chain.maxRequestsPerSecond,
    })),
  }));
/** A chain entry as CHAINS gives it (rpcUrl or rpcUrls, defaults left out). */
export type ChainEntry = z.input<typeof chainConfigSchema>;
export type ChainConfig = z.infer<typeof chainConfigSchema>;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * Jobs a worker process runs at once (WORKER_CONCURRENCY). Laurel's jobs mostly wait on the network
 * (webhook calls of up to 5 s, receipts asked of a node): at 4, four slow receivers held every job
 * of the process, and deliveries were bound by round trips, not CPU (see `npm run bench:webhooks`).
 * The job worker's pool grows to this + 2 connections.
 */
export const DEFAULT_WORKER_CONCURRENCY = 32;

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  LOCAL_CHAIN: z.enum(['auto', 'on', 'off']).default('auto'),
  CHAINS_FILE: z.string().min(1).optional(),
  CHAINS: z.string().min(1).optional(),
  RPC_TIMEOUT_MS: positiveInt(10_000),
  API_KEY_CHALLENGE_TTL_SECONDS: positiveInt(600),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  RATE_LIMIT_MAX_REQUESTS: positiveInt(600),
  API_KEYS_PER_WALLET: positiveInt(20),
  KEY_REQUESTS_PER_CLIENT: positiveInt(30),
  KEY_CHALLENGES_PER_WALLET: positiveInt(10),
  TRUST_PROXY: z.string().min(1).optional(),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt(30_000),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt(10_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000),
  HTTP_MAX_CONNECTIONS: positiveInt(1_000),
  NONCE_RESERVATION_TTL_SECONDS: positiveInt(120),
  EXECUTE_WAIT_TIMEOUT_SECONDS: positiveInt(30),
  TRANSACTION_DROP_AFTER_SECONDS: positiveInt(600),
  PERMIT_DEADLINE_SECONDS: positiveInt(3600),
  WORKER_CONCURRENCY: positiveInt(DEFAULT_WORKER_CONCURRENCY),
  LAUREL_ROLES: z
    .string()
    .default('api,worker,indexer')
    .transform((value) =>
      value
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z.enum(['api', 'worker', 'indexer'], { message: "each role must be 'api', 'worker' or 'indexer'" }),
        )
        .min(1, 'name at least one role'),
    ),
  SHUTDOWN_GRACE_SECONDS: positiveInt(10),
  DATABASE_POOL_SIZE: positiveInt(10),
  WORKER_POOL_SIZE: positiveInt(10),
  WEBHOOK_SECRET_ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)')
    .optional(),
  WEBHOOK_SIGNATURE_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
    .default('x-laurel-signature')
    .transform((name) => name.toLowerCase()),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false', 'auto']).default('auto'),
  WEBHOOK_RETRY_BASE_MS: positiveInt(60_000),
  WEBHOOK_DELIVERY_LEASE_SECONDS: positiveInt(30),
  INDEXER_POLL_INTERVAL_MS: positiveInt(1000),
  INDEXER_MAX_BLOCK_RANGE: positiveInt(2000),
  READ_CACHE_MB: z.coerce.number().int().min(0).default(64),
});

export type LaurelRole = 'api' | 'worker' | 'indexer';

export interface Config {
  port: number;
  host: string;
  /** Absent: an embedded PostgreSQL is started under dataDir. */
  databaseUrl?: string;
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
  };
  http: {
    /** Express `trust proxy`: which proxies' X-Forwarded-For to believe for the client address. */
    trustProxy?: string;
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
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
    /**
     * Trust the development CA of the data folder for webhook calls (a development setup only), so
     * that a receiver on this machine (`npm run demo`) can be verified.
     */
    trustDevelopmentCa: boolean;
    /** First retry delay; each further retry waits four times longer (with jitter). */
    retryBaseMs: number;
    /** A delivery job locked longer than this is taken to have lost its worker, and is run again. */
    deliveryLeaseSeconds: number;
  };
  indexer: { pollIntervalMs: number; maxBlockRange: number };
  /** Bytes of profiles and leaderboards kept in memory until their chain's index changes (0: none). */
  readCacheBytes: number;
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
  const chains = parseChains(env, cwd);
  if (e.LOCAL_CHAIN === 'on' && chains.some((chain) => chain.name === 'local')) {
    throw new ConfigError('CHAINS: the name "local" is reserved for the embedded chain (LOCAL_CHAIN=on)');
  }
  // Laurel on its own local chain and nothing else: a developer's machine, not a deployment.
  const developmentSetup = chains.length === 0 && runsLocalChain(e.LOCAL_CHAIN, chains.length);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
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
    },
    http: {
      trustProxy: e.TRUST_PROXY,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
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
      allowPrivateNetworks:
        e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'auto'
          ? developmentSetup
          : e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
      trustDevelopmentCa: developmentSetup,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      deliveryLeaseSeconds: e.WEBHOOK_DELIVERY_LEASE_SECONDS,
    },
    indexer: { pollIntervalMs: e.INDEXER_POLL_INTERVAL_MS, maxBlockRange: e.INDEXER_MAX_BLOCK_RANGE },
    readCacheBytes: e.READ_CACHE_MB * 1024 * 1024,
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
