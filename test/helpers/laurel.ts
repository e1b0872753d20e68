import { randomBytes } from 'node:crypto';
import { loadConfig, type ChainConfig } from '../../src/config';
import { createLogger, type Logger } from '../../src/logger';
import { startLaurel, type Laurel } from '../../src/server/laurel';
import { chainConfigOf, startTestChain } from './chain';
import { createTestDatabase } from './database';
import { openApiContract } from './openapi-contract';

const TEST_WEBHOOK_ENCRYPTION_KEY = randomBytes(32).toString('base64');

export type TestChain = Awaited<ReturnType<typeof startTestChain>>;

export interface TestLaurel extends Laurel {
  databaseUrl: string;
  /** The anvil chain named `local`, when started with `chain: true`. */
  chain?: TestChain;
}

/**
 * A real Laurel on a free port, over its own fresh database (and its own anvil with Laurel
 * deployed, when `chain` is true; or a chain started by the test, which the test stops),
 * configured through the same environment variables as `npm start`. `chainEntry` adds to the
 * chain's entry in CHAINS; `log` replaces the silent logger.
 */
export async function startTestLaurel(
  options: {
    chain?: boolean | TestChain;
    chainEntry?: Partial<ChainConfig>;
    env?: Record<string, string>;
    worker?: boolean;
    /** Another server's database (dropped on stop) instead of a fresh one on the tests' server. */
    database?: { url: string; drop(): Promise<void> };
    /** Where Laurel logs (default: a logger at LOG_LEVEL on stdout). */
    log?: Logger;
  } = {},
): Promise<TestLaurel> {
  const database = options.database ?? (await createTestDatabase());
  const ownChain = options.chain === true ? await startTestChain() : undefined;
  const chain = typeof options.chain === 'object' ? options.chain : ownChain;
  const chains = chain ? [chainConfigOf(chain, options.chainEntry)] : [];
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: database.url,
    LOCAL_CHAIN: 'off',
    CHAINS: JSON.stringify(chains),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Every test issues keys and asks GraphQL from 127.0.0.1: the per-client limits are tested
    // where a test sets them.
    KEY_REQUESTS_PER_CLIENT: '1000000',
    KEY_CHALLENGES_PER_WALLET: '1000000',
    GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT: '1000000',
    // Test receivers listen on loopback; the secret key stays out of the checkout's data folder.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_SECRET_ENCRYPTION_KEY: TEST_WEBHOOK_ENCRYPTION_KEY,
    // Badges of other tests name ipfs:// URIs: their fetches go to a loopback gateway that the
    // SSRF rule refuses at once, never to a public one.
    BADGE_METADATA_IPFS_GATEWAY: 'https://127.0.0.1:9/ipfs/',
    ...options.env,
  });
  const log = options.log ?? createLogger(config.logLevel);
  const laurel = await startLaurel(config, { log, worker: options.worker });
  return {
    ...laurel,
    databaseUrl: database.url,
    chain,
    stop: async () => {
      await laurel.stop();
      await ownChain?.stop();
      await database.drop();
    },
  };
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A JSON request the way a REST client makes it. Its answer is checked against openapi.json (the
 * status documented for the path and method, the body valid): a test fails on an answer the
 * published contract does not describe.
 */
export async function request<T = Record<string, unknown>>(
  url: string,
  method: string,
  path: string,
  options: {
    body?: unknown;
    apiKey?: string;
    rawBody?: string | Uint8Array;
    headers?: Record<string, string>;
  } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['X-API-KEY'] = options.apiKey;
  let body: string | Uint8Array | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body });
  const text = await response.text();
  const answer = {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as T,
  };
  openApiContract().check({ method, url: path, ...answer });
  return answer;
}

/** A GraphQL operation over HTTP. */
export async function graphql<T = Record<string, unknown>>(
  url: string,
  query: string,
  options: { variables?: Record<string, unknown>; apiKey?: string } = {},
): Promise<HttpResult<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>> {
  return request(url, 'POST', '/graphql', {
    body: { query, variables: options.variables },
    apiKey: options.apiKey,
  });
}
