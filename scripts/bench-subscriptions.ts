/**
 * GraphQL subscriptions at scale: BENCH_SUBSCRIBERS (1,000) subscriptions held by one Laurel API
 * process, half `profileChanged` (a user each) and half `leaderboardChanged` (the XP leaderboard's
 * first page), over BENCH_CONNECTIONS (50) WebSocket connections of graphql-ws clients in this
 * process. Prints:
 * - memory per subscriber: the API process's heap (after a full GC) and RSS with every subscriber
 *   connected and pushed its first value, minus the same before any connection, divided by the
 *   subscribers (so a connection's share is in it);
 * - time from a commit to the push: BENCH_COMMITS (20) commits of index rows, each a reward to one
 *   of the profile users that puts them on top of the leaderboard, written the way the indexer
 *   writes them (applyIndexWrites: rows and NOTIFY in one transaction) from another connection;
 *   from the COMMIT's return to each push that shows it reaching its client (the leaderboard
 *   subscribers' and the user's), p50/p99/max over all of them, next to the baseline of the same
 *   run: from the COMMIT's return to the NOTIFY reaching a bare LISTEN connection of this process.
 *
 *   npm run bench:subscriptions        (run it under `flock /tmp/heavy.lock` on shared machines)
 *
 * Loopback only, in a temporary folder removed at the end: an embedded PostgreSQL and anvil, and
 * Laurel (LAUREL_ROLES=api, SUBSCRIPTION_PUSH_INTERVAL_MS as configured, default 1000) in a child
 * process of this script (`--child`; heap figures are taken after a full GC).
 * Commits are spaced by more than the push interval, so the figures are the pipeline's, not the
 * throttle's.
 */
import 'reflect-metadata';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import { getAddress, HDNodeWallet, hexlify, JsonRpcProvider, randomBytes, Wallet } from 'ethers';
import { createClient, type Client } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import WebSocket from 'ws';
import { XP_DECIMALS } from '../src/chain/contracts';
import { ensureLaurelDeployed } from '../src/chain/deploy';
import { LOCAL_EXPLORER_URL } from '../src/chain/registry';
import { loadConfig } from '../src/config';
import { ANVIL_MNEMONIC, startAnvil } from '../src/embedded/anvil';
import { startEmbeddedPostgres } from '../src/embedded/postgres';
import { applyIndexWrites, prepareIndexWrites } from '../src/indexer/index-writer';
import { createLogger } from '../src/logger';
import { startLaurel } from '../src/server/laurel';
import { envInt } from './lib/env';
import { forkWithIpc, runBenchmark } from './lib/ipc-child';
import { percentile } from './lib/percentile';

const subscribers = envInt('BENCH_SUBSCRIBERS', 1000, 20_000);
const connections = envInt('BENCH_CONNECTIONS', 50, 1000);
const commits = envInt('BENCH_COMMITS', 20, 1000);
const pushIntervalMs = envInt('SUBSCRIPTION_PUSH_INTERVAL_MS', 1000, 60_000);
const PAGE_SIZE = 10;
const MB = 1024 * 1024;

/** What the child answers to `measure`: its memory after a full GC. */
interface Memory {
  heapUsed: number;
  rss: number;
}

/** Child mode: Laurel's API on the parent's database and chain until the IPC channel closes. */
async function runChild(): Promise<void> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: process.env.DATABASE_URL,
    DATA_DIR: process.env.DATA_DIR,
    LOCAL_CHAIN: 'off',
    CHAINS: process.env.CHAINS,
    LAUREL_ROLES: 'api',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX_REQUESTS: '1000000000',
    SUBSCRIPTIONS_PER_KEY: String(subscribers),
    SUBSCRIPTION_PUSH_INTERVAL_MS: String(pushIntervalMs),
  });
  const laurel = await startLaurel(config, { log: createLogger('warn'), worker: false });
  // A full GC before each measure (as --expose-gc gives it, without a flag on the command line).
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  process.on('message', (message) => {
    if (message !== 'measure') return;
    gc();
    gc();
    const { heapUsed, rss } = process.memoryUsage();
    process.send!({ heapUsed, rss } satisfies Memory);
  });
  process.once('disconnect', () => void laurel.stop().then(() => process.exit(0)));
  process.send!({ url: laurel.url });
}

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

async function apiKeyFor(baseUrl: string, wallet: Wallet | HDNodeWallet): Promise<string> {
  const { challenge } = await postJson(`${baseUrl}/key/challenge`, { public_address: wallet.address });
  const signature = await wallet.signMessage(challenge as string);
  const { api_key } = await postJson(`${baseUrl}/key/verify`, { signature, public_address: wallet.address });
  return api_key as string;
}

/** The XP (base units) that puts the `n`-th commit's user on top: more than every earlier one. */
const topXp = (n: number) => BigInt(n + 1) * 10n ** BigInt(XP_DECIMALS);

async function main(): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  const folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-bench-subscriptions-'));
  chmodSync(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must reach the folder
  stops.push(async () => rmSync(folder, { recursive: true, force: true }));
  try {
    const postgres = await startEmbeddedPostgres({ dataDir: folder, database: 'laurel', persistent: false });
    stops.push(() => postgres.stop());
    const anvil = await startAnvil();
    stops.push(() => anvil.stop());
    const provider = new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, { staticNetwork: true });
    stops.push(async () => provider.destroy());
    const deployer = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").connect(provider);
    const { factory } = await ensureLaurelDeployed(provider, deployer);
    const chains = JSON.stringify([
      {
        name: 'local',
        chainId: anvil.chainId,
        rpcUrl: anvil.rpcUrl,
        explorerUrl: LOCAL_EXPLORER_URL,
        factoryAddress: factory,
      },
    ]);
    const laurel = await forkWithIpc<{ url: string }>(__filename, ['--child'], {
      ...process.env,
      DATABASE_URL: postgres.databaseUrl,
      DATA_DIR: folder,
      CHAINS: chains,
    });
    stops.push(() => laurel.stop());
    const { url } = laurel.ready;
    const measure = () =>
      new Promise<Memory>((resolve) => {
        laurel.child.once('message', (memory: Memory) => resolve(memory));
        laurel.child.send('measure');
      });
    const apiKey = await apiKeyFor(url, Wallet.createRandom());

    const users = Array.from({ length: Math.ceil(subscribers / 2) }, () => Wallet.createRandom().address);
    const before = await measure();

    // The subscribers: received pushes are timed as they arrive.
    const arrivals: { at: number; top: string | null; user?: string; xp?: string }[] = [];
    const clients: Client[] = [];
    for (let i = 0; i < connections; i++) {
      clients.push(
        createClient({
          url: `${url.replace(/^http/, 'ws')}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: { 'X-API-KEY': apiKey },
          retryAttempts: 0,
        }),
      );
    }
    stops.push(async () => Promise.all(clients.map((client) => client.dispose())));
    let firstPushes = 0;
    for (let i = 0; i < subscribers; i++) {
      const client = clients[i % connections];
      const profileOf = i % 2 === 0 ? users[i / 2] : undefined;
      const query = profileOf
        ? `subscription { profileChanged(chain: "local", user_id: "${profileOf}") { user_id xp_balance } }`
        : `subscription { leaderboardChanged(chain: "local", page_size: ${PAGE_SIZE}) { user xp_rewarded } }`;
      let first = true;
      client.subscribe<Record<string, unknown>>(
        { query },
        {
          next: ({ data, errors }) => {
            if (errors) throw new Error(JSON.stringify(errors));
            const at = performance.now();
            if (first) {
              first = false;
              firstPushes += 1;
              return;
            }
            const profile = data?.profileChanged as { user_id: string; xp_balance: string } | undefined;
            const page = data?.leaderboardChanged as { user: string }[] | undefined;
            arrivals.push(
              profile
                ? { at, top: null, user: profile.user_id, xp: profile.xp_balance }
                : { at, top: page?.[0]?.user ?? null },
            );
          },
          error: (error) => {
            throw error instanceof Error ? error : new Error(JSON.stringify(error));
          },
          complete: () => undefined,
        },
      );
    }
    const subscribing = performance.now();
    while (firstPushes < subscribers) await sleep(20);
    const subscribedMs = performance.now() - subscribing;
    const held = await measure();

    // The baseline: a bare LISTEN connection of this process hearing the same commits.
    const listener = new PgClient({ connectionString: postgres.databaseUrl });
    await listener.connect();
    stops.push(() => listener.end());
    const notified: number[] = [];
    listener.on('notification', () => notified.push(performance.now()));
    await listener.query('LISTEN laurel_index_changes');

    const writer = new PgClient({ connectionString: postgres.databaseUrl });
    await writer.connect();
    stops.push(() => writer.end());
    const latencies: number[] = [];
    const leaderboardLatencies: number[] = [];
    const profileLatencies: number[] = [];
    const baseline: number[] = [];
    const app = getAddress(hexlify(randomBytes(20)));
    const leaderboardSubscribers = subscribers - users.length;
    for (let n = 0; n < commits; n++) {
      const user = users[n % users.length];
      const block = 1_000 + n;
      const writes = prepareIndexWrites(
        anvil.chainId,
        [
          {
            type: 'reward',
            blockNumber: block,
            logIndex: 0,
            transactionHash: hexlify(randomBytes(32)),
            app,
            user,
            token: app,
            kind: 'xp',
            amount: topXp(n),
            actionName: 'bench',
          },
        ],
        new Map([[block, Math.floor(Date.now() / 1000)]]),
      );
      const seen = arrivals.length;
      const heard = notified.length;
      await writer.query('BEGIN');
      await applyIndexWrites(writer, writes);
      await writer.query('COMMIT');
      const committedAt = performance.now();
      // Every leaderboard subscriber sees the user on top, and the user's profile subscriber the reward.
      const expected = leaderboardSubscribers + 1;
      const deadline = committedAt + 30_000;
      while (arrivals.length - seen < expected || notified.length === heard) {
        if (performance.now() > deadline) {
          throw new Error(`commit ${n}: ${arrivals.length - seen} of ${expected} pushes within 30 s`);
        }
        await sleep(5);
      }
      for (const arrival of arrivals.slice(seen)) {
        if (arrival.top !== user && arrival.user !== user) throw new Error(`commit ${n}: an unexpected push`);
        latencies.push(arrival.at - committedAt);
        (arrival.user ? profileLatencies : leaderboardLatencies).push(arrival.at - committedAt);
      }
      baseline.push(notified[heard] - committedAt);
      // The next commit after the push interval: what is measured is the pipeline, not the throttle.
      await sleep(Math.max(0, committedAt + pushIntervalMs + 100 - performance.now()));
    }

    for (const list of [latencies, leaderboardLatencies, profileLatencies, baseline])
      list.sort((a, b) => a - b);
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    console.log(
      `bench-subscriptions: ${subscribers} subscribers (${users.length} profileChanged, ${leaderboardSubscribers} leaderboardChanged) ` +
        `over ${connections} connections, push interval ${pushIntervalMs} ms`,
    );
    console.log(`  subscribed (every first push received) in ${ms(subscribedMs)}`);
    console.log(
      `  memory per subscriber: heap ${((held.heapUsed - before.heapUsed) / subscribers / 1024).toFixed(1)} KiB, ` +
        `RSS ${((held.rss - before.rss) / subscribers / 1024).toFixed(1)} KiB ` +
        `(API process heap ${(before.heapUsed / MB).toFixed(1)} → ${(held.heapUsed / MB).toFixed(1)} MiB, ` +
        `RSS ${(before.rss / MB).toFixed(1)} → ${(held.rss / MB).toFixed(1)} MiB)`,
    );
    console.log(
      `  commit → push (${latencies.length} pushes of ${commits} commits): p50 ${ms(percentile(latencies, 50))}, ` +
        `p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1] ?? 0)}`,
    );
    console.log(
      `    leaderboardChanged: p50 ${ms(percentile(leaderboardLatencies, 50))}, p99 ${ms(percentile(leaderboardLatencies, 99))}; ` +
        `profileChanged (the rewarded user's): p50 ${ms(percentile(profileLatencies, 50))}, p99 ${ms(percentile(profileLatencies, 99))}`,
    );
    console.log(
      `  baseline, commit → NOTIFY heard by a bare LISTEN connection: p50 ${ms(percentile(baseline, 50))}, ` +
        `p99 ${ms(percentile(baseline, 99))}`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

runBenchmark(main, () => runChild());
