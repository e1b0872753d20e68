/**
 * Read throughput over HTTP on the seeded index (run `npm run seed:index` first): requests per
 * second, p50 and p99 of GET /v1/profile and GET /v1/leaderboard through the whole of Laurel (API
 * key, rate limit, validation, resolver, service, PostgreSQL), at BENCH_CONCURRENCY (32) concurrent
 * keep-alive clients for BENCH_SECONDS (10) per phase and side after a 2 s warm-up, next to a
 * baseline in the same run: a bare Express route per question running one hand-written SQL query
 * (node-postgres, same pool size) that gives the same answer. Every side gets the same request
 * sequence, after an untimed pass of it that loads what it reads into PostgreSQL's buffers. The
 * sides take turns in BENCH_ROUNDS (4) rounds, every other one in reverse order, and the ratio
 * printed first is the median of the rounds' ratios, so that a slow spell of the machine does not
 * decide it. Laurel is measured
 * twice: as configured (its read caches on: "cached") and as a second instance with
 * READ_CACHE_MB=0 ("no cache"), so the figures without the caches are always printed too.
 *
 *   npm run bench:read
 *
 * The clients run in a process of their own (scripts/lib/http-load.ts), as wrk or autocannon
 * would, on bare keep-alive sockets: when they shared the servers' event loop, their work was
 * queued behind the server's and counted in every latency. Laurel, its no-cache twin and the
 * baseline each run in a process of their own too (this script with `--server <kind>`), so none
 * pays for another's heap or event loop; one is measured at a time. Every side gets the same
 * generator. Each line also shows the CPU time per request of the server's process and of
 * PostgreSQL (from /proc, on Linux). BENCH_PHASES (e.g. `profile,7 days`) runs only the phases
 * whose names contain one of its words. READ_CACHE_MB sets the cached Laurel's budget (an index
 * seeded with --scale 10 needs more than the default: docs/production-database.md);
 * DATABASE_POOLER=transaction makes both Laurels send every statement unnamed (as behind PgBouncer
 * <= 1.20), to measure what that costs; METRICS=off starts both without their metrics.
 *
 * Phases: Laurel's floor, GET /v1/chains (API key and request budget, no index query), against a
 * bare route answering the same envelope, and again against a bare route that checks the key too
 * (its SHA-256 looked up, in PostgreSQL once then in memory); a random user's profile in a random app; a random app's leaderboard over the last 7 days
 * (a window with partial days at both ends, ending one second earlier with every request, as
 * clients computing "the last 7 days" from the clock would: no two requests are the same, so a
 * cache of whole answers does not help); a random app's all-time leaderboard.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Wallet } from 'ethers';
import { Client, Pool } from 'pg';
import { formatBaseUnits } from '../src/chain/amounts';
import { LOCAL_EXPLORER_URL } from '../src/chain/registry';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startLaurel } from '../src/server/laurel';
import { BENCH_CHAIN_ID, openBenchDatabase } from './bench-database';
import { startLoadClient, type LoadClient, type Measured } from './lib/http-load';
import { median, percentile } from './lib/percentile';
import { forkWithIpc } from './lib/ipc-child';
import { processTreeCpuSeconds } from './lib/process-cpu';
import { seededPlan } from './seed-index';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 4));
const WARM_UP_SECONDS = 2;
/** Later rounds open their connections anew: a short unmeasured start. */
const ROUND_WARM_UP_SECONDS = 0.25;
const WEEK = 7 * 86_400;

interface Phase {
  name: string;
  /** The i-th request: a path and query, the same for Laurel and the baseline. */
  request: (i: number) => { laurel: string; baseline: string };
  /** The baseline's clients send their API keys too (its route checks them). */
  baselineKeyed?: boolean;
  /** The baseline answers an empty list where Laurel answers its chains (not compared). */
  emptyBaseline?: boolean;
  /** The least throughput ratio to Laurel's baseline aimed at (default 0.67). */
  target?: number;
}

/** A small deterministic generator, so both sides get the same sequence. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Requests a round cycles through (more than any side sends in a round at these rates); round r
 * sends requests r × this onwards, so no round repeats another's (the picks of users and apps
 * repeat with this period, so every round reads what the untimed pass loaded).
 */
const REQUESTS_PER_ROUND = 100_000;

/** What one side measured in one round, with the CPU seconds its server and PostgreSQL spent meanwhile. */
interface RoundRun extends Measured {
  /** Undefined where /proc cannot tell. */
  serverCpuSeconds?: number;
  postgresCpuSeconds?: number;
}

/** A side of a phase: the server asked, which of the phase's paths it is sent, and with which keys. */
interface Target {
  server: ServerProcess;
  side: 'laurel' | 'baseline';
  apiKeys: readonly string[];
}

/** One round of a phase on one side, by the load generator of another process (see scripts/lib/http-load.ts). */
async function load(
  client: LoadClient,
  target: Target,
  phase: Phase,
  round: { index: number; warmUpSeconds: number },
  postgresPid: number | undefined,
): Promise<RoundRun> {
  const first = round.index * REQUESTS_PER_ROUND;
  const paths = Array.from({ length: REQUESTS_PER_ROUND }, (_, i) => phase.request(first + i)[target.side]);
  const cpuOf = (pid: number | undefined) => (pid ? processTreeCpuSeconds([pid]) : undefined);
  const [serverBefore, postgresBefore] = [cpuOf(target.server.pid), cpuOf(postgresPid)];
  const measured = await client.run({
    baseUrl: target.server.url,
    apiKeys: target.apiKeys,
    paths,
    concurrency: CONCURRENCY,
    seconds: SECONDS / ROUNDS,
    warmUpSeconds: round.warmUpSeconds,
  });
  const spent = (pid: number | undefined, before: number | undefined) => {
    const after = cpuOf(pid);
    return before === undefined || after === undefined ? undefined : after - before;
  };
  return {
    ...measured,
    serverCpuSeconds: spent(target.server.pid, serverBefore),
    postgresCpuSeconds: spent(postgresPid, postgresBefore),
  };
}

/** A side's rounds as one run: rate over their summed stretches, percentiles of all their answers. */
function combined(rounds: readonly RoundRun[]) {
  const sum = (of: (round: RoundRun) => number) => rounds.reduce((total, round) => total + of(round), 0);
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b);
  const requests = Math.max(
    1,
    sum((round) => round.requests),
  );
  const perRequestUs = (of: (round: RoundRun) => number | undefined) =>
    rounds.some((round) => of(round) === undefined)
      ? undefined
      : (sum((round) => of(round)!) * 1e6) / requests;
  return {
    perSecond: latencies.length / sum((round) => round.seconds),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: sum((round) => round.errors),
    serverCpuUs: perRequestUs((round) => round.serverCpuSeconds),
    postgresCpuUs: perRequestUs((round) => round.postgresCpuSeconds),
  };
}

/** The baseline: one route per question, one SQL query each, no API key, no framework beyond Express. */
function baselineApp(pool: Pool): express.Express {
  const app = express();
  app.get('/profile', async (req, res) => {
    const { rows } = await pool.query<{ profile: BaselineProfile }>(
      `SELECT json_build_object(
         'xp', (SELECT coalesce(sum(b.balance), 0)::text FROM token_balances b
                JOIN indexed_tokens t ON t.chain_id = b.chain_id AND t.address = b.token_address AND t.kind = 'xp'
                WHERE b.chain_id = $3 AND b.holder = $1 AND t.app_address = $2),
         'badges', (SELECT coalesce(json_agg(json_build_object('id', g.address, 'name', g.name,
                      'metadataURI', nullif(g.base_uri, ''), 'metadata', m.document) ORDER BY g.block_number, g.address), '[]')
                    FROM badge_holdings h JOIN indexed_badges g ON g.chain_id = h.chain_id AND g.address = h.badge_address
                      LEFT JOIN badge_metadata m ON m.uri = g.base_uri
                    WHERE h.chain_id = $3 AND h.holder = $1 AND h.count > 0 AND g.app_address = $2),
         'actions', (SELECT coalesce(json_agg(json_build_object('name', action_name, 'kind', kind, 'amount', amount::text,
                       'at', extract(epoch FROM block_time)::bigint::text) ORDER BY block_number DESC, log_index DESC), '[]')
                     FROM completed_actions WHERE chain_id = $3 AND user_address = $1 AND app_address = $2),
         'credits', (SELECT coalesce(json_agg(json_build_object('id', t.address, 'name', t.name, 'symbol', t.symbol,
                       'decimals', t.decimals, 'balance', coalesce(b.balance, 0)::text) ORDER BY t.kind, t.name, t.address), '[]')
                     FROM indexed_tokens t LEFT JOIN token_balances b
                       ON b.chain_id = t.chain_id AND b.token_address = t.address AND b.holder = $1
                     WHERE t.chain_id = $3 AND t.app_address = $2 AND t.kind <> 'xp')) AS profile`,
      [req.query.user_id, req.query.app_id, BENCH_CHAIN_ID],
    );
    const p = rows[0].profile;
    res.json({
      user_id: req.query.user_id,
      xp_balance: formatBaseUnits(BigInt(p.xp), 18),
      collected_badges: p.badges,
      completed_actions: p.actions.map((a) => ({
        name: a.name,
        xp_rewarded: a.kind === 'xp' ? formatBaseUnits(BigInt(a.amount), 18) : '0',
        createdAt: a.at,
      })),
      credit_balances: p.credits.map((c) => ({
        token_id: c.id,
        token_name: c.name,
        token_balance: c.balance,
        token_balance_formatted: formatBaseUnits(BigInt(c.balance), c.decimals),
        token_symbol: c.symbol,
        token_decimals: c.decimals,
      })),
    });
  });
  app.get('/chains', (_req, res) => {
    res.json({ status: 'success', chains: [] });
  });
  // Laurel's answer (its one chain, as configured below) after the check a keyed API makes at the
  // least: the key's SHA-256 looked up (in PostgreSQL once, then in memory), 401 for an unknown or
  // revoked one.
  const liveKeys = new Map<string, boolean>();
  app.get('/chains-keyed', async (req, res) => {
    const key = req.get('x-api-key');
    const hash = key ? createHash('sha256').update(key).digest('hex') : '';
    let live = liveKeys.get(hash);
    if (live === undefined) {
      const { rows } = await pool.query<{ live: boolean }>(
        'SELECT revoked_at IS NULL AS live FROM api_keys WHERE key_hash = $1',
        [hash],
      );
      live = rows[0]?.live ?? false;
      liveKeys.set(hash, live);
    }
    if (!live) {
      res.status(401).json({ status: 'failed', error: 'Invalid API key' });
      return;
    }
    res.json({ status: 'success', chains: [BENCH_CHAIN] });
  });
  app.get('/leaderboard', async (req, res) => {
    const start = req.query.start === undefined ? null : Number(req.query.start);
    const end = req.query.end === undefined ? null : Number(req.query.end);
    const { rows } =
      start === null || end === null
        ? await pool.query<{ user: string; total: string }>(
            `SELECT user_address AS "user", amount::text AS total FROM reward_totals
             WHERE chain_id = $1 AND token_address = (SELECT xp_token FROM indexed_apps WHERE chain_id = $1 AND address = $2)
             ORDER BY amount DESC, lower(user_address) LIMIT 10`,
            [BENCH_CHAIN_ID, req.query.app_id],
          )
        : await pool.query<{ user: string; total: string }>(
            // Whole days from the per-day totals, the partial first and last days from the actions.
            `WITH w AS (SELECT (SELECT xp_token FROM indexed_apps WHERE chain_id = $1 AND address = $2) AS token,
                               to_timestamp($3::float8) AS s, to_timestamp($4::float8 + 1) AS e,
                               (ceil($3::float8 / 86400) * 86400) AS first_day, (floor(($4::float8 + 1) / 86400) * 86400) AS end_day)
             SELECT user_address AS "user", sum(amount)::text AS total FROM (
               SELECT d.user_address, d.amount FROM reward_daily_totals d, w
               WHERE d.chain_id = $1 AND d.token_address = w.token
                 AND d.day >= (to_timestamp(w.first_day) AT TIME ZONE 'UTC')::date
                 AND d.day < (to_timestamp(w.end_day) AT TIME ZONE 'UTC')::date
               UNION ALL
               SELECT c.user_address, c.amount FROM completed_actions c, w
               WHERE c.chain_id = $1 AND c.token_address = w.token AND c.block_time >= w.s AND c.block_time < to_timestamp(w.first_day)
               UNION ALL
               SELECT c.user_address, c.amount FROM completed_actions c, w
               WHERE c.chain_id = $1 AND c.token_address = w.token AND c.block_time >= to_timestamp(w.end_day) AND c.block_time < w.e
             ) AS rewards GROUP BY user_address ORDER BY sum(amount) DESC, lower(user_address) LIMIT 10`,
            [BENCH_CHAIN_ID, req.query.app_id, start, end],
          );
    res.json(rows.map((row) => ({ user: row.user, xp_rewarded: formatBaseUnits(BigInt(row.total), 18) })));
  });
  return app;
}

/** The one chain both Laurels serve, as GET /v1/chains lists it. */
const BENCH_CHAIN = {
  name: 'bench',
  chainId: BENCH_CHAIN_ID,
  explorerUrl: LOCAL_EXPLORER_URL,
  factoryAddress: '0x0000000000000000000000000000000000000000',
  confirmations: 1,
};

interface BaselineProfile {
  xp: string;
  badges: unknown[];
  actions: { name: string; kind: string; amount: string; at: string }[];
  credits: { id: string; name: string; symbol: string; decimals: number; balance: string }[];
}

async function issueApiKey(url: string): Promise<string> {
  const wallet = Wallet.createRandom();
  const post = async (path: string, body: object) =>
    (await (
      await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, string>;
  const { challenge } = await post('/key/challenge', { public_address: wallet.address });
  const { api_key } = await post('/key/verify', {
    public_address: wallet.address,
    signature: await wallet.signMessage(challenge),
  });
  return api_key;
}

type ServerKind = 'laurel' | 'uncached' | 'baseline';

/**
 * In a child process of its own (`--server <kind>`): Laurel as configured, Laurel with
 * READ_CACHE_MB=0, or the baseline. Tells the parent its URL, and stops when the parent lets go.
 */
async function runServer(kind: ServerKind, databaseUrl: string): Promise<void> {
  let url: string;
  let readCacheBytes = 0;
  let stop: () => Promise<void>;
  if (kind === 'baseline') {
    const pool = new Pool({ connectionString: databaseUrl, max: 10 });
    pool.on('error', () => undefined); // connections cut when the database stops at the end
    const server = await new Promise<http.Server>((resolve) => {
      const listening = baselineApp(pool).listen(0, '127.0.0.1', () => resolve(listening));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    };
  } else {
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: databaseUrl,
      LOCAL_CHAIN: 'off',
      // Reads need no node: a chain entry whose RPC nobody answers (its indexer just waits).
      CHAINS: JSON.stringify([{ ...BENCH_CHAIN, rpcUrl: 'http://127.0.0.1:9' }]),
      LOG_LEVEL: 'silent',
      RATE_LIMIT_MAX_REQUESTS: '1000000000',
      KEY_REQUESTS_PER_CLIENT: '1000', // the benchmark issues one key per client from one address
      INDEXER_POLL_INTERVAL_MS: '600000',
      // `transaction`: statements sent unnamed, as behind PgBouncer <= 1.20 (what that costs).
      DATABASE_POOLER: process.env.DATABASE_POOLER,
      // `off`: what the metrics cost (docs/operating.md).
      METRICS: process.env.METRICS,
      // "uncached": the same Laurel without its read caches: what every answer costs uncached.
      ...(kind === 'uncached'
        ? { READ_CACHE_MB: '0' }
        : process.env.READ_CACHE_MB
          ? { READ_CACHE_MB: process.env.READ_CACHE_MB }
          : {}),
    });
    const laurel = await startLaurel(config, { log: createLogger('silent'), worker: false });
    url = laurel.url;
    readCacheBytes = config.readCacheBytes;
    stop = () => laurel.stop();
  }
  process.once('disconnect', () => {
    void stop().then(() => process.exit(0));
  });
  process.send!({ url, readCacheBytes });
}

interface ServerProcess {
  url: string;
  pid: number;
  readCacheBytes: number;
  stop: () => Promise<void>;
}

/** Forks a server process; resolves with its URL once it listens. */
async function startServer(kind: ServerKind, databaseUrl: string): Promise<ServerProcess> {
  const { child, ready, stop } = await forkWithIpc<{ url: string; readCacheBytes: number }>(
    __filename,
    ['--server', kind],
    { ...process.env, BENCH_DATABASE_URL: databaseUrl },
  );
  return { ...ready, pid: child.pid!, stop };
}

async function main(): Promise<void> {
  const database = await openBenchDatabase();
  const db = new Client({ connectionString: database.databaseUrl });
  await db.connect();
  const plan = await seededPlan(db);
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM completed_actions WHERE chain_id = $1',
    [BENCH_CHAIN_ID],
  );
  await db.end();
  if (!plan || Number(rows[0].n) === 0) {
    console.error('bench:read: the bench database has no index: run `npm run seed:index` first');
    await database.stop();
    process.exitCode = 1;
    return;
  }
  const [laurel, uncached, baseline] = await Promise.all(
    (['laurel', 'uncached', 'baseline'] as const).map((kind) => startServer(kind, database.databaseUrl)),
  );
  const baselineUrl = baseline.url;
  const client = await startLoadClient();
  try {
    // One key per client, as separate API users would have (each key has its own rate-limit row).
    const apiKeys: string[] = [];
    for (let i = 0; i < CONCURRENCY; i += 1) apiKeys.push(await issueApiKey(laurel.url));
    const apiKey = apiKeys[0];
    const random = sequence(7);
    const picks = Array.from({ length: 100_000 }, () => ({
      user: plan.users[Math.floor(random() ** 2 * plan.users.length)],
      app: plan.apps[Math.floor(random() * plan.apps.length)].address,
    }));
    const pick = (i: number) => picks[i % picks.length];
    const now = plan.to;
    const phases: Phase[] = [
      {
        // Laurel's floor: API key check and request budget (in memory), no index query.
        name: 'floor: GET /v1/chains (no index query)',
        request: () => ({ laurel: '/v1/chains', baseline: '/chains' }),
        emptyBaseline: true,
        target: 0.8,
      },
      {
        // The same read against a bare route that checks the key as well.
        name: 'floor with key: GET /v1/chains, the baseline checks the API key too',
        request: () => ({ laurel: '/v1/chains', baseline: '/chains-keyed' }),
        baselineKeyed: true,
        target: 0.8,
      },
      {
        name: 'profile (user in an app)',
        request: (i) => {
          const { user, app } = pick(i);
          return {
            laurel: `/v1/profile?chain=bench&user_id=${user}&app_id=${app}`,
            baseline: `/profile?user_id=${user}&app_id=${app}`,
          };
        },
      },
      {
        name: 'leaderboard (last 7 days)',
        request: (i) => {
          const { app } = pick(i);
          // One second earlier every request: no two requests of a run ask for the same window.
          const end = now - i;
          const window = `start=${end - WEEK}&end=${end}`;
          return {
            laurel: `/v1/leaderboard?chain=bench&app_id=${app}&${window}`,
            baseline: `/leaderboard?app_id=${app}&${window}`,
          };
        },
      },
      {
        name: 'leaderboard (all time)',
        request: (i) => {
          const { app } = pick(i);
          return {
            laurel: `/v1/leaderboard?chain=bench&app_id=${app}`,
            baseline: `/leaderboard?app_id=${app}`,
          };
        },
      },
    ];

    // The same answers from all three, before measuring anything (a few requests of each phase).
    for (const [phase, i] of phases
      .filter((phase) => !phase.emptyBaseline)
      .flatMap((phase) => [1, 4_321, 77_777].map((i) => [phase, i] as const))) {
      const request = phase.request(i);
      const [a, b, c] = await Promise.all([
        fetch(`${laurel.url}${request.laurel}`, { headers: { 'x-api-key': apiKey } }).then((r) => r.json()),
        fetch(`${baselineUrl}${request.baseline}`, {
          headers: phase.baselineKeyed ? { 'x-api-key': apiKey } : {},
        }).then((r) => r.json()),
        fetch(`${uncached.url}${request.laurel}`, { headers: { 'x-api-key': apiKey } }).then((r) => r.json()),
      ]);
      if (JSON.stringify(a) !== JSON.stringify(b) || JSON.stringify(c) !== JSON.stringify(b)) {
        throw new Error(
          `${phase.name}: Laurel and the baseline disagree:\n${JSON.stringify(a)}\n${JSON.stringify(c)}\n${JSON.stringify(b)}`,
        );
      }
    }

    console.log(
      `bench:read  ${CONCURRENCY} concurrent clients, ${SECONDS} s per phase and side in ${ROUNDS} interleaved rounds, loopback HTTP keep-alive, ` +
        `index of ${Number(rows[0].n).toLocaleString('en-US')} completed actions of ${plan.users.length.toLocaleString('en-US')} users\n` +
        `  "cached": Laurel as configured, with its read caches: answers, and the days leaderboard windows are ranked from ` +
        `(READ_CACHE_MB=${laurel.readCacheBytes / 1024 / 1024}; nothing is indexed during the run, so nothing invalidates them)\n` +
        `  "no cache": a second Laurel on the same database with READ_CACHE_MB=0 (every request queries PostgreSQL)\n` +
        `  each server and the load generator in a process of its own`,
    );
    type Combined = ReturnType<typeof combined>;
    const cpu = (m: Combined) =>
      m.serverCpuUs === undefined
        ? ''
        : `   CPU/request: server ${m.serverCpuUs.toFixed(0).padStart(4)} µs` +
          (m.postgresCpuUs === undefined ? '' : `, PostgreSQL ${m.postgresCpuUs.toFixed(0).padStart(4)} µs`);
    const row = (label: string, m: Combined) =>
      `  ${label.padEnd(9)} ${m.perSecond.toFixed(0).padStart(7)} req/s   p50 ${m.p50.toFixed(2).padStart(6)} ms   p99 ${m.p99.toFixed(2).padStart(6)} ms${cpu(m)}${m.errors ? `   ${m.errors} errors` : ''}`;
    // The median of the rounds' ratios first: a busy spell of the machine that slowed one side's
    // round does not move it (the ratio of the totals follows).
    type SideResult = { rounds: RoundRun[]; all: Combined };
    const ratio = (label: string, ours: SideResult, bare: SideResult, target: number) => {
      const rounds = ours.rounds.map((round, i) => round.perSecond / bare.rounds[i].perSecond);
      return (
        `  ${label.padEnd(9)} ${median(rounds).toFixed(2)}x throughput (target >= ${target}; median of the rounds, ` +
        `${Math.min(...rounds).toFixed(2)}-${Math.max(...rounds).toFixed(2)}; of the totals ${(ours.all.perSecond / bare.all.perSecond).toFixed(2)}), ` +
        `p99 ${ours.all.p99.toFixed(2)} ms (target < 25)`
      );
    };
    const only = process.env.BENCH_PHASES?.split(',');
    for (const phase of phases.filter((p) => !only || only.some((word) => p.name.includes(word)))) {
      const targets: Record<'cached' | 'uncached' | 'bare', Target> = {
        cached: { server: laurel, side: 'laurel', apiKeys },
        uncached: { server: uncached, side: 'laurel', apiKeys },
        bare: { server: baseline, side: 'baseline', apiKeys: phase.baselineKeyed ? apiKeys : [] },
      };
      // Untimed: the phase's requests once through the no-cache Laurel, so that PostgreSQL's buffers
      // (and the OS's page cache) hold what the phase reads before any side is timed. On an index
      // larger than shared_buffers the first side measured otherwise paid for loading them.
      await load(client, targets.uncached, phase, { index: 0, warmUpSeconds: WARM_UP_SECONDS }, database.pid);
      const runs: Record<keyof typeof targets, RoundRun[]> = { cached: [], uncached: [], bare: [] };
      // Interleaved: each side runs a share of the phase per round, every other round in reverse
      // order, so that a slow spell of a shared machine falls on all sides (as in bench:build).
      for (let index = 0; index < ROUNDS; index++) {
        const round = { index, warmUpSeconds: index === 0 ? WARM_UP_SECONDS : ROUND_WARM_UP_SECONDS };
        const order = ['cached', 'uncached', 'bare'] as const;
        for (const side of index % 2 === 0 ? order : [...order].reverse()) {
          runs[side].push(await load(client, targets[side], phase, round, database.pid));
        }
      }
      const target = phase.target ?? 0.67;
      const [cached, noCache, bare] = [runs.cached, runs.uncached, runs.bare].map((rounds) => ({
        rounds,
        all: combined(rounds),
      }));
      console.log(`\n${phase.name}`);
      console.log(row('cached', cached.all));
      console.log(row('no cache', noCache.all));
      console.log(row('baseline', bare.all));
      console.log(ratio('cached', cached, bare, target));
      console.log(ratio('no cache', noCache, bare, target));
    }
  } finally {
    await Promise.all([client.stop(), laurel.stop(), uncached.stop(), baseline.stop()]);
    await database.stop();
  }
}

const serverIndex = process.argv.indexOf('--server');
if (serverIndex >= 0) {
  void runServer(process.argv[serverIndex + 1] as ServerKind, process.env.BENCH_DATABASE_URL!).catch(
    (error: unknown) => {
      console.error('bench:read server failed:', error);
      process.exit(1);
    },
  );
} else {
  main().catch((error: unknown) => {
    console.error('bench:read failed:', error);
    process.exitCode = 1;
  });
}
