/**
 * Build throughput of POST /v1/reward/XP: unsigned App.rewardXP transactions built per second by a
 * real Laurel (HTTP, API key, validation, simulation, fees, nonce reservation in PostgreSQL), for
 * one sender (N concurrent requests) and for many senders, next to a baseline measured in the same
 * run on the same chain: plain ethers doing the RPC work of one build (populateTransaction +
 * estimateGas + getFeeData + getTransactionCount), with the same concurrency; then the same build
 * through GraphQL (`mutation rewardXP`) next to the REST route.
 *
 * Each line also says what one build cost: JSON-RPC calls (and the HTTP requests they went out in)
 * and SQL statements counted in this process (Laurel runs in it), and the CPU time of the process
 * per build (steady on a busy machine, when rates are not); at the end the process's
 * peak RSS (sampled during the phases, and the kernel's high-water mark since start).
 *
 *   npm run build && node dist/scripts/bench-build.js      (or: npm run bench:build)
 *
 * Everything runs on loopback, in a temporary folder removed at the end: an embedded PostgreSQL,
 * an anvil with Laurel deployed, Laurel itself in-process. Each phase is bounded by a number of
 * builds and a number of seconds, whichever comes first, and runs in BENCH_ROUNDS shares
 * interleaved with the other phases' (so that the machine's slow spells fall on both sides of a
 * ratio), after an untimed round of the same shares that warms every path up. Environment knobs
 * (defaults): BENCH_CONCURRENCY (16), BENCH_SENDERS (8),
 * BENCH_MAX_BUILDS (4000), BENCH_MAX_SECONDS (10), BENCH_ROUNDS (4); DATABASE_POOLER=transaction
 * sends every statement unnamed (as behind PgBouncer <= 1.20 in transaction mode); METRICS=off
 * starts Laurel without its metrics (what they cost).
 */
import { Wallet, parseEther } from 'ethers';
import { encodeActionId } from '../src/chain/contracts';
import { envInt } from './lib/env';
import { percentile } from './lib/percentile';
import {
  ACTION_ID,
  MB,
  XP_AMOUNT,
  buildRewardXP,
  rssHighWaterMark,
  sampleRss,
  startLocalLaurel,
} from './lib/local-laurel';
import { startWorkCounters, type WorkCounts } from './lib/work-counters';

const options = {
  concurrency: envInt('BENCH_CONCURRENCY', 16, 256),
  senders: envInt('BENCH_SENDERS', 8, 64),
  maxBuilds: envInt('BENCH_MAX_BUILDS', 4000, 100_000),
  maxSeconds: envInt('BENCH_MAX_SECONDS', 10, 600),
  rounds: envInt('BENCH_ROUNDS', 4, 100),
};

interface Build {
  sender: string;
  nonce: number;
}

interface PhaseResult {
  builds: number;
  failures: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  /** Senders whose builds got pairwise distinct nonces. */
  distinctNonces: boolean;
  firstFailure?: string;
  work: WorkCounts;
  /** CPU time of this process (Laurel and the clients, or ethers) per build: steady on a busy machine. */
  cpuMsPerBuild: number;
}

/** What one run of builds recorded, before it is summed up (alone, or with the other rounds of a phase). */
interface Run {
  latencies: number[];
  builds: Build[];
  failures: number;
  firstFailure?: string;
  seconds: number;
  work: WorkCounts;
  cpuMicros: number;
}

/**
 * Runs `build` with `concurrency` workers until `maxBuilds` were started or `maxSeconds` passed;
 * `build(i)` is the i-th build (round-robin over senders is up to it).
 */
async function runBuilds(
  build: (i: number) => Promise<Build>,
  maxBuilds: number,
  maxSeconds: number,
): Promise<Run> {
  const latencies: number[] = [];
  const builds: Build[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let started = 0;
  const counting = startWorkCounters();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  const worker = async () => {
    while (started < maxBuilds && performance.now() < deadline) {
      const i = started++;
      const begin = performance.now();
      try {
        builds.push(await build(i));
        latencies.push(performance.now() - begin);
      } catch (error) {
        failures += 1;
        firstFailure ??= (error as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const work = counting.stop();
  const cpuUsed = process.cpuUsage(cpu);
  return {
    latencies,
    builds,
    failures,
    firstFailure,
    seconds,
    work,
    cpuMicros: cpuUsed.user + cpuUsed.system,
  };
}

const emptyWork = (): WorkCounts => ({ rpcCalls: 0, rpcRequests: 0, sqlStatements: 0 });

/** One phase from its runs: rates over their summed time, percentiles over all their builds. */
function summarize(runs: readonly Run[]): PhaseResult {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const builds = runs.reduce((n, run) => n + run.builds.length, 0);
  const seconds = runs.reduce((total, run) => total + run.seconds, 0);
  const work = emptyWork();
  for (const run of runs) {
    for (const key of Object.keys(work) as (keyof WorkCounts)[]) work[key] += run.work[key];
  }
  const cpuMicros = runs.reduce((total, run) => total + run.cpuMicros, 0);
  return {
    builds,
    failures: runs.reduce((n, run) => n + run.failures, 0),
    seconds,
    perSecond: builds / seconds,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    // Per run: each Laurel run starts without the reservations of the runs before it.
    distinctNonces: runs.every(
      (run) => new Set(run.builds.map((b) => `${b.sender}:${b.nonce}`)).size === run.builds.length,
    ),
    firstFailure: runs.find((run) => run.firstFailure)?.firstFailure,
    work,
    cpuMsPerBuild: builds ? cpuMicros / 1000 / builds : 0,
  };
}

function line(label: string, result: PhaseResult): string {
  return (
    `${label.padEnd(38)} ${result.perSecond.toFixed(1).padStart(8)} builds/s` +
    `  (${result.builds} in ${result.seconds.toFixed(2)} s, p50 ${result.p50Ms.toFixed(1)} ms, ` +
    `p95 ${result.p95Ms.toFixed(1)} ms, failures ${result.failures}, ` +
    `nonces ${result.distinctNonces ? 'distinct' : 'REPEATED'})\n${' '.repeat(40)}per build: ` +
    perBuild(result) +
    (result.firstFailure ? `\n${' '.repeat(40)}first failure: ${result.firstFailure.slice(0, 200)}` : '')
  );
}

function perBuild(result: PhaseResult): string {
  const per = (count: number) => (result.builds ? count / result.builds : 0).toFixed(2);
  const { rpcCalls, rpcRequests, sqlStatements } = result.work;
  return (
    `${per(rpcCalls)} JSON-RPC calls in ${per(rpcRequests)} HTTP requests, ${per(sqlStatements)} SQL statements, ` +
    `${result.cpuMsPerBuild.toFixed(2)} ms CPU of this process`
  );
}

async function main(): Promise<void> {
  console.log(
    `bench-build: concurrency ${options.concurrency}, senders ${options.senders}, ` +
      `at most ${options.maxBuilds} builds or ${options.maxSeconds} s per phase, in ${options.rounds} interleaved rounds` +
      (process.env.METRICS === 'off' ? ', METRICS=off' : ''),
  );
  const local = await startLocalLaurel({ senders: options.senders, connections: options.concurrency });
  try {
    const { laurel, provider, appId, app, senders } = local;
    const receiver = Wallet.createRandom().address;

    // ---------------------------------------------------------------- Laurel
    const laurelBuild = async (senderIndex: number): Promise<Build> => ({
      sender: senders[senderIndex].address,
      nonce: (await buildRewardXP(local, senderIndex, receiver)).nonce,
    });

    const rewardMutation =
      'mutation Reward($chain: String!, $app: String!, $action: String!, $receiver: String!, $amount: Decimal!) ' +
      '{ rewardXP(chain: $chain, app_id: $app, action_id: $action, receiver: $receiver, amount: $amount) ' +
      '{ unsignedTransaction { to data maxPriorityFeePerGas maxFeePerGas gasLimit nonce chainId type } } }';
    const graphqlBuild = async (senderIndex: number): Promise<Build> => {
      const result = await local.http.post(
        `${laurel.url}/graphql`,
        {
          query: rewardMutation,
          variables: { chain: 'local', app: appId, action: ACTION_ID, receiver, amount: String(XP_AMOUNT) },
        },
        local.keys[senderIndex],
      );
      const data = (
        result.body as { data?: { rewardXP?: { unsignedTransaction: { nonce: number } } } } | null
      )?.data;
      const tx = data?.rewardXP?.unsignedTransaction;
      if (result.status !== 200 || !tx)
        throw new Error(`HTTP ${result.status}: ${JSON.stringify(result.body)}`);
      return { sender: senders[senderIndex].address, nonce: tx.nonce };
    };

    // ---------------------------------------------------------------- baseline: plain ethers
    const rewardXP = app.getFunction('rewardXP');
    const actionId = encodeActionId(ACTION_ID);
    const amount = parseEther(String(XP_AMOUNT));
    const baselineBuild = async (senderIndex: number): Promise<Build> => {
      const from = senders[senderIndex].address;
      const tx = await rewardXP.populateTransaction(receiver, amount, actionId);
      const [gasLimit, fees, nonce] = await Promise.all([
        provider.estimateGas({ ...tx, from }),
        provider.getFeeData(),
        provider.getTransactionCount(from, 'pending'),
      ]);
      if (gasLimit <= 0n || fees.maxFeePerGas === null) throw new Error('incomplete build');
      return { sender: from, nonce };
    };

    // Nothing the bench builds is sent, so each build leaves a nonce reservation open until its
    // lease ends; each Laurel run starts without the ones of the runs before it (a sender that
    // sends what it builds has none pending), so that every run meets the same conditions.
    // The process's peak RSS is sampled apart while Laurel serves (its phases) and while plain
    // ethers runs (the baseline's), since both share this process.
    const peakRss = { laurel: 0, baseline: 0 };
    const phases = {
      laurelOne: { of: 'laurel', build: () => laurelBuild(0) },
      baselineOne: { of: 'baseline', build: () => baselineBuild(0) },
      laurelMany: { of: 'laurel', build: (i: number) => laurelBuild(i % senders.length) },
      baselineMany: { of: 'baseline', build: (i: number) => baselineBuild(i % senders.length) },
      graphqlMany: { of: 'laurel', build: (i: number) => graphqlBuild(i % senders.length) },
    } satisfies Record<string, { of: keyof typeof peakRss; build: (i: number) => Promise<Build> }>;
    type PhaseName = keyof typeof phases;
    const names = Object.keys(phases) as PhaseName[];
    // Interleaved: every phase runs a share of its builds in each round (in reverse order every
    // other round), so a slow spell of this shared machine falls on both sides of every ratio.
    // Round 0 is an untimed warm-up of every phase (connections, caches, and V8's compilation of
    // each path, which takes a few hundred calls: with too few warm-up builds a path's first timed
    // share runs partly unoptimized, GraphQL's most of all, as it comes last in a round).
    const runs = Object.fromEntries(names.map((name) => [name, [] as Run[]])) as Record<PhaseName, Run[]>;
    for (let round = 0; round <= options.rounds; round += 1) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const { of, build } = phases[name];
        if (of === 'laurel') await laurel.services.prisma.$executeRaw`DELETE FROM nonce_reservations`;
        const rss = sampleRss();
        try {
          const run = await runBuilds(
            build,
            Math.ceil(options.maxBuilds / options.rounds),
            options.maxSeconds / options.rounds,
          );
          if (round > 0) runs[name].push(run);
        } finally {
          peakRss[of] = Math.max(peakRss[of], rss.stop());
        }
      }
    }
    const results = Object.fromEntries(names.map((name) => [name, summarize(runs[name])])) as Record<
      PhaseName,
      PhaseResult
    >;
    const highWaterMark = rssHighWaterMark();

    console.log('');
    console.log(line('Laurel POST /v1/reward/XP, 1 sender', results.laurelOne));
    console.log(line('baseline ethers, 1 sender', results.baselineOne));
    console.log(line(`Laurel POST /v1/reward/XP, ${senders.length} senders`, results.laurelMany));
    console.log(line(`baseline ethers, ${senders.length} senders`, results.baselineMany));
    console.log(line(`Laurel GraphQL rewardXP, ${senders.length} senders`, results.graphqlMany));
    console.log('');
    console.log(
      `ratio Laurel / baseline, 1 sender:   ${(results.laurelOne.perSecond / results.baselineOne.perSecond).toFixed(2)}`,
    );
    console.log(
      `ratio Laurel / baseline, ${senders.length} senders:  ${(results.laurelMany.perSecond / results.baselineMany.perSecond).toFixed(2)}`,
    );
    console.log(
      `ratio GraphQL / REST, ${senders.length} senders:    ${(results.graphqlMany.perSecond / results.laurelMany.perSecond).toFixed(2)}`,
    );
    console.log(
      `peak RSS of this process: ${(peakRss.laurel / MB).toFixed(0)} MB during Laurel's phases (Laurel and ` +
        `the bench's HTTP clients), ${(peakRss.baseline / MB).toFixed(0)} MB during the baseline's` +
        (highWaterMark === null ? '' : `, ${(highWaterMark / MB).toFixed(0)} MB since start (VmHWM)`),
    );
    console.log(
      '(baseline: no HTTP, no API key, no validation and no nonce reservation: concurrent builds for one\n' +
        ' sender get the same pending nonce there, which is what Laurel reserves nonces in PostgreSQL for)',
    );
  } finally {
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error('bench-build failed:', error);
  process.exitCode = 1;
});
