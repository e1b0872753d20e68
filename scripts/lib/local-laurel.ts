/**
 * What the benchmarks of the transaction path share: a real Laurel in this process on an embedded
 * PostgreSQL and an anvil with Laurel's contracts deployed (all on loopback, in a temporary folder
 * removed at stop), an app owned by anvil's first dev account with `senders - 1` random operators
 * (funded), an API key per sender obtained the way a client gets one, and a keep-alive HTTP client.
 * bench:build, bench:reservations and bench:flow start it; each adds its own Laurel settings.
 */
import 'reflect-metadata';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  Contract,
  HDNodeWallet,
  JsonRpcProvider,
  Wallet,
  getAddress,
  parseEther,
  toBeHex,
  type ContractTransactionReceipt,
} from 'ethers';
import { appFactoryInterface, appInterface } from '../../src/chain/contracts';
import { ensureLaurelDeployed } from '../../src/chain/deploy';
import { LOCAL_EXPLORER_URL } from '../../src/chain/registry';
import type { UnsignedTransactionJson } from '../../src/chain/unsigned-transactions';
import { loadConfig } from '../../src/config';
import { ANVIL_MNEMONIC, startAnvil, type AnvilInstance } from '../../src/embedded/anvil';
import { startEmbeddedPostgres } from '../../src/embedded/postgres';
import { createLogger } from '../../src/logger';
import { startLaurel, type Laurel } from '../../src/server/laurel';
import { resetStatementStats, statementStatsSettings } from './statement-stats';

export interface LocalLaurelOptions {
  /** Wallets allowed to reward in the app: the owner and `senders - 1` operators. */
  senders: number;
  /** Keep-alive connections of the HTTP client (the bench's concurrency). */
  connections: number;
  /** Laurel settings on top of the bench's (environment variable names, as in loadConfig). */
  env?: Record<string, string | undefined>;
  /** Start Laurel's job worker (default false: builds and reads need none). */
  worker?: boolean;
}

/** What a client of Laurel's REST API needs to build rewards (a LocalLaurel is one). */
export interface RewardClient {
  /** Laurel's base URL. */
  url: string;
  appId: string;
  /** API key of each sender. */
  keys: string[];
  http: JsonClient;
}

export interface LocalLaurel extends RewardClient {
  laurel: Laurel;
  anvil: AnvilInstance;
  /** The embedded PostgreSQL's postmaster (for its CPU time). */
  postgresPid: number;
  /** The bench database's URL (printTopStatements). */
  databaseUrl: string;
  /** A provider on the same anvil, for the baselines (every call goes to the node). */
  provider: JsonRpcProvider;
  /** The app's contract, connected to the owner. */
  app: Contract;
  senders: (Wallet | HDNodeWallet)[];
  stop(): Promise<void>;
}

export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * The benchmarks' HTTP client: node:http over keep-alive connections. It shares the process with
 * Laurel, so it should cost little: undici's fetch costs a large share of the process's CPU per
 * build, time Laurel would be charged for.
 */
export class JsonClient {
  private readonly agent: http.Agent;

  /** With `timeoutMs`, a request with no answer by then fails with a JsonClientTimeout. */
  constructor(
    connections: number,
    private readonly timeoutMs?: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  }

  post(url: string, body: unknown, apiKey?: string): Promise<JsonAnswer> {
    return this.request('POST', url, apiKey, JSON.stringify(body));
  }

  get(url: string, apiKey?: string): Promise<JsonAnswer> {
    return this.request('GET', url, apiKey);
  }

  destroy(): void {
    this.agent.destroy();
  }

  private request(method: string, url: string, apiKey?: string, payload?: string): Promise<JsonAnswer> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            ...(payload === undefined
              ? {}
              : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
            ...(apiKey ? { 'X-API-KEY': apiKey } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({
                status: response.statusCode ?? 0,
                body: text ? (JSON.parse(text) as unknown) : null,
              });
            } catch (error) {
              reject(error as Error);
            }
          });
          response.on('error', reject);
        },
      );
      request.on('error', (error: Error & { reusedSocket?: boolean }) => {
        // Whether it went out on a kept-alive connection (which the server may have closed meanwhile).
        error.reusedSocket = request.reusedSocket;
        reject(error);
      });
      if (this.timeoutMs !== undefined) {
        request.setTimeout(this.timeoutMs, () => request.destroy(new JsonClientTimeout(this.timeoutMs!)));
      }
      request.end(payload);
    });
  }
}

/** A JsonClient's request that got no answer within its timeout. */
export class JsonClientTimeout extends Error {
  override name = 'JsonClientTimeout';
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** An API key the way a client gets one: challenge, personal_sign, verify. */
export async function apiKeyFor(
  client: JsonClient,
  baseUrl: string,
  wallet: Wallet | HDNodeWallet,
): Promise<string> {
  const challenge = await client.post(`${baseUrl}/key/challenge`, { public_address: wallet.address });
  const text = (challenge.body as { challenge?: string } | null)?.challenge;
  if (challenge.status !== 200 || !text) throw new Error(`key/challenge: ${JSON.stringify(challenge.body)}`);
  const signature = await wallet.signMessage(text);
  const verify = await client.post(`${baseUrl}/key/verify`, { signature, public_address: wallet.address });
  const key = (verify.body as { api_key?: string } | null)?.api_key;
  if (verify.status !== 200 || !key) throw new Error(`key/verify: ${JSON.stringify(verify.body)}`);
  return key;
}

/** Starts everything (see the file's comment); `stop()` undoes it in reverse order. */
export async function startLocalLaurel(options: LocalLaurelOptions): Promise<LocalLaurel> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) {
      await step().catch((error: unknown) => console.error('error while stopping:', error));
    }
  };
  try {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-bench-'));
    chmodSync(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must reach the folder
    stops.push(async () => rmSync(folder, { recursive: true, force: true }));
    const postgres = await startEmbeddedPostgres({
      dataDir: folder,
      database: 'laurel_bench',
      persistent: false,
      settings: statementStatsSettings,
    });
    stops.push(() => postgres.stop());
    const anvil = await startAnvil();
    stops.push(() => anvil.stop());

    // cacheTimeout -1: every call goes to the node (ethers otherwise reuses identical answers for 250 ms).
    const provider = new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    provider.pollingInterval = 50;
    stops.push(async () => provider.destroy());
    const client = new JsonClient(options.connections);
    stops.push(async () => client.destroy());
    const owner = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").connect(provider);
    const { factory } = await ensureLaurelDeployed(provider, owner);

    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: postgres.databaseUrl,
      DATA_DIR: folder,
      LOCAL_CHAIN: 'off',
      CHAINS: JSON.stringify([
        {
          name: 'local',
          chainId: anvil.chainId,
          rpcUrl: anvil.rpcUrl,
          explorerUrl: LOCAL_EXPLORER_URL,
          factoryAddress: factory,
          confirmations: 1,
        },
      ]),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX_REQUESTS: '1000000000',
      // `transaction`: statements sent unnamed, as behind PgBouncer <= 1.20 (what that costs).
      DATABASE_POOLER: process.env.DATABASE_POOLER,
      // METRICS=off measures what the metrics cost (default on, as Laurel's).
      METRICS: process.env.METRICS,
      ...options.env,
    });
    const laurel = await startLaurel(config, { log: createLogger('warn'), worker: options.worker ?? false });
    stops.push(() => laurel.stop());
    await resetStatementStats(postgres.databaseUrl);

    // An app owned by the first dev account; the other senders become its operators.
    const factoryContract = new Contract(factory, appFactoryInterface, owner);
    const created = (await (await factoryContract.createApp('Bench')).wait()) as ContractTransactionReceipt;
    const appCreated = created.logs
      .map((log) => appFactoryInterface.parseLog(log))
      .find((event) => event?.name === 'AppCreated');
    const appId = getAddress(appCreated!.args.app as string);
    const app = new Contract(appId, appInterface, owner);
    const operators = Array.from({ length: options.senders - 1 }, () =>
      Wallet.createRandom().connect(provider),
    );
    for (const operator of operators) {
      await provider.send('anvil_setBalance', [operator.address, toBeHex(parseEther('100'))]);
      await (await app.addOperator(operator.address)).wait();
    }
    const senders = [owner, ...operators];
    const keys = await Promise.all(senders.map((wallet) => apiKeyFor(client, laurel.url, wallet)));
    return {
      laurel,
      url: laurel.url,
      anvil,
      postgresPid: postgres.pid,
      databaseUrl: postgres.databaseUrl,
      provider,
      appId,
      app,
      senders,
      keys,
      http: client,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What the benchmarks reward: XP_AMOUNT XP for the action ACTION_ID. */
export const XP_AMOUNT = 1;
export const ACTION_ID = 'bench';

/** POST /v1/reward/XP by sender `senderIndex` for `receiver`: the transaction Laurel built. */
export async function buildRewardXP(
  client: RewardClient,
  senderIndex: number,
  receiver: string,
): Promise<UnsignedTransactionJson> {
  const result = await client.http.post(
    `${client.url}/v1/reward/XP`,
    { chain: 'local', app_id: client.appId, action_id: ACTION_ID, receiver, amount: XP_AMOUNT },
    client.keys[senderIndex],
  );
  const tx = (result.body as { unsignedTransaction?: UnsignedTransactionJson } | null)?.unsignedTransaction;
  if (result.status !== 200 || !tx) throw new Error(`HTTP ${result.status}: ${JSON.stringify(result.body)}`);
  return tx;
}

/** The process's RSS, sampled every 100 ms until stopped (Laurel is in this process). */
export function sampleRss(): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

/** The kernel's high-water mark of a process's RSS (VmHWM; this one's by default), in bytes; null off Linux. */
export function rssHighWaterMark(pid: number | 'self' = 'self'): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export const MB = 1024 * 1024;
