import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

export const chainConfigSchema = z.object({
  name: z.string().min(1).max(255),
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  explorerUrl: z.string().url(),
  factoryAddress: z.string().regex(addressPattern, 'must be a 0x-prefixed address'),
  confirmations: z.number().int().min(1).default(1),
  /** First block the indexer reads (e.g. the factory's deployment block); 0 when absent. */
  startBlock: z.number().int().min(0).optional(),
});
export type ChainConfig = z.infer<typeof chainConfigSchema>;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOCAL_CHAIN: z.enum(['auto', 'on', 'off']).default('auto'),
  CHAINS_FILE: z.string().min(1).optional(),
  CHAINS: z.string().min(1).optional(),
  RPC_TIMEOUT_MS: positiveInt(10_000),
  API_KEY_CHALLENGE_TTL_SECONDS: positiveInt(600),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  RATE_LIMIT_MAX_REQUESTS: positiveInt(600),
  NONCE_RESERVATION_TTL_SECONDS: positiveInt(120),
  EXECUTE_WAIT_TIMEOUT_SECONDS: positiveInt(30),
  PERMIT_DEADLINE_SECONDS: positiveInt(3600),
  WORKER_CONCURRENCY: positiveInt(4),
  INDEXER_POLL_INTERVAL_MS: positiveInt(1000),
  INDEXER_MAX_BLOCK_RANGE: positiveInt(2000),
});

export interface Config {
  port: number;
  host: string;
  /** Absent: an embedded PostgreSQL is started under dataDir. */
  databaseUrl?: string;
  dataDir: string;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** 'auto' starts the local anvil chain only when no chain is configured. */
  localChain: 'auto' | 'on' | 'off';
  chains: ChainConfig[];
  rpcTimeoutMs: number;
  auth: { challengeTtlSeconds: number; rateLimit: { windowSeconds: number; maxRequests: number } };
  transactions: {
    nonceReservationTtlSeconds: number;
    executeWaitTimeoutSeconds: number;
    permitDeadlineSeconds: number;
  };
  workerConcurrency: number;
  indexer: { pollIntervalMs: number; maxBlockRange: number };
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
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    localChain: e.LOCAL_CHAIN,
    chains,
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    auth: {
      challengeTtlSeconds: e.API_KEY_CHALLENGE_TTL_SECONDS,
      rateLimit: { windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS, maxRequests: e.RATE_LIMIT_MAX_REQUESTS },
    },
    transactions: {
      nonceReservationTtlSeconds: e.NONCE_RESERVATION_TTL_SECONDS,
      executeWaitTimeoutSeconds: e.EXECUTE_WAIT_TIMEOUT_SECONDS,
      permitDeadlineSeconds: e.PERMIT_DEADLINE_SECONDS,
    },
    workerConcurrency: e.WORKER_CONCURRENCY,
    indexer: { pollIntervalMs: e.INDEXER_POLL_INTERVAL_MS, maxBlockRange: e.INDEXER_MAX_BLOCK_RANGE },
  };
}

/** Whether the embedded anvil chain named `local` runs. */
export function wantsLocalChain(config: Config): boolean {
  return config.localChain === 'on' || (config.localChain === 'auto' && config.chains.length === 0);
}
