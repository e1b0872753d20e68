/**
 * The flow users run, end to end: BENCH_USERS (16) concurrent users over BENCH_WALLETS (4) wallets,
 * each in a loop of POST /v1/reward/XP → sign locally (ethers) → POST
 * /v1/transactions/execute-and-wait → GET /v1/profile until the reward shows, against a real Laurel
 * (API, job worker and indexer in this process) on anvil, with a local HTTPS webhook receiver
 * counting the `transaction` events Laurel delivers. The baseline, in the same run on the same
 * anvil: the same rewards sent with plain ethers straight to the node (populate, estimate, sign,
 * send, wait for the receipt; a NonceManager per wallet, as a client sharing a wallet between
 * concurrent users needs), no Laurel.
 *
 *   npm run bench:flow
 *
 * Prints rewards/s of both and their ratio, p50/p95/p99 from the request to the reward visible in
 * the profile (the baseline: to the receipt), from the receipt (execute-and-wait's answer) to the
 * webhook's arrival, and the process's peak RSS. Laurel's and the baseline's phases are
 * interleaved in BENCH_ROUNDS (2) rounds of BENCH_SECONDS / BENCH_ROUNDS each, after an untimed
 * round. Knobs (defaults): BENCH_USERS (16), BENCH_WALLETS (4), BENCH_SECONDS (20), BENCH_ROUNDS
 * (2); METRICS=off starts Laurel without its metrics. The npm script sets NODE_EXTRA_CA_CERTS to
 * the test CA, which signs the receiver's certificate.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { NonceManager, Wallet, parseEther, type Contract } from 'ethers';
import { encodeActionId } from '../src/chain/contracts';
import { createServerCertificate } from '../src/modules/webhooks/certificates';
import { envInt } from './lib/env';
import { MB, XP_AMOUNT, ACTION_ID, buildRewardXP, sampleRss, startLocalLaurel } from './lib/local-laurel';
import { percentile } from './lib/percentile';

const options = {
  users: envInt('BENCH_USERS', 16, 256),
  wallets: envInt('BENCH_WALLETS', 4, 64),
  seconds: envInt('BENCH_SECONDS', 20, 600),
  rounds: envInt('BENCH_ROUNDS', 2, 20),
};
const WARM_UP_SECONDS = 3;
/** A flow that has not ended after this long failed (a bench that hangs tells nothing). */
const FLOW_TIMEOUT_MS = 30_000;

const caFile = path.join(process.cwd(), 'test/fixtures/tls/test-ca.pem');

/** An HTTPS receiver in this process: when each `transaction` event arrived, by transaction hash. */
async function startReceiver(): Promise<{
  url: string;
  arrivals: Map<string, number>;
  stop(): Promise<void>;
}> {
  const arrivals = new Map<string, number>();
  const certificate = await createServerCertificate({
    cert: readFileSync(caFile, 'utf8'),
    key: readFileSync(caFile.replace(/\.pem$/, '.key'), 'utf8'),
  });
  const server = createServer(certificate, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        event: string;
        payload: { hash?: string } | null;
      };
      if (call.event === 'transaction' && call.payload?.hash) {
        arrivals.set(call.payload.hash.toLowerCase(), at);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Flow {
  /** Request → reward visible in the profile (Laurel) or → receipt (baseline), ms. */
  latency: number;
  /** Laurel: the build, the signature, execute-and-wait and the profile reads, ms. */
  steps?: Record<Step, number>;
  /** Laurel: the transaction's hash and when execute-and-wait answered with its receipt. */
  hash?: string;
  receiptAt?: number;
}

const STEPS = ['build', 'sign', 'execute-and-wait', 'profile'] as const;
type Step = (typeof STEPS)[number];

interface Phase {
  flows: Flow[];
  seconds: number;
  failures: number;
  firstFailure?: string;
}

async function main(): Promise<void> {
  if (options.wallets > options.users) throw new Error('BENCH_WALLETS must not exceed BENCH_USERS');
  console.log(
    `bench-flow: ${options.users} users over ${options.wallets} wallets, ${options.seconds} s a side in ` +
      `${options.rounds} interleaved rounds` +
      (process.env.METRICS === 'off' ? ', METRICS=off' : ''),
  );
  const receiver = await startReceiver();
  const local = await startLocalLaurel({
    senders: options.wallets,
    connections: options.users,
    worker: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    },
  });
  try {
    const { laurel, senders, keys, provider } = local;
    for (const wallet of senders) {
      await laurel.services.prisma.webhook.create({
        data: { accountAddress: wallet.address, url: receiver.url, events: ['transaction'], disabled: false },
      });
    }
    // User u sends with wallet u % wallets and rewards a receiver of its own (Laurel and baseline apart).
    const walletOf = (user: number) => user % options.wallets;
    const laurelReceivers = Array.from({ length: options.users }, () => Wallet.createRandom().address);
    const baselineReceivers = Array.from({ length: options.users }, () => Wallet.createRandom().address);
    const rewarded = new Array<number>(options.users).fill(0);

    const laurelFlow = async (user: number): Promise<Flow> => {
      const started = performance.now();
      const sender = walletOf(user);
      const tx = await buildRewardXP(local, sender, laurelReceivers[user]);
      const built = performance.now();
      const signed = await senders[sender].signTransaction({ ...tx, type: 2 });
      const signedAt = performance.now();
      const executed = await local.http.post(
        `${laurel.url}/v1/transactions/execute-and-wait`,
        { chain: 'local', signed_transaction: signed },
        keys[sender],
      );
      const result = executed.body as { status?: string; transactionHash?: string } | null;
      if (executed.status !== 200 || result?.status !== 'success' || !result.transactionHash) {
        throw new Error(`execute-and-wait: HTTP ${executed.status}: ${JSON.stringify(executed.body)}`);
      }
      const receiptAt = performance.now();
      rewarded[user] += 1;
      const profileUrl = `${laurel.url}/v1/profile?chain=local&app_id=${local.appId}&user_id=${laurelReceivers[user]}`;
      const giveUp = performance.now() + FLOW_TIMEOUT_MS;
      for (;;) {
        if (performance.now() > giveUp)
          throw new Error(`the reward of ${result.transactionHash} never showed`);
        const profile = await local.http.get(profileUrl, keys[sender]);
        const xp = Number((profile.body as { xp_balance?: string } | null)?.xp_balance ?? 0);
        if (profile.status === 200 && xp >= rewarded[user] * XP_AMOUNT) break;
        if (profile.status !== 200)
          throw new Error(`profile: HTTP ${profile.status}: ${JSON.stringify(profile.body)}`);
      }
      const visible = performance.now();
      return {
        latency: visible - started,
        steps: {
          build: built - started,
          sign: signedAt - built,
          'execute-and-wait': receiptAt - signedAt,
          profile: visible - receiptAt,
        },
        hash: result.transactionHash.toLowerCase(),
        receiptAt,
      };
    };

    const managers = senders.map((wallet) => new NonceManager(wallet));
    const apps = managers.map((manager) => local.app.connect(manager) as Contract);
    const actionId = encodeActionId(ACTION_ID);
    const amount = parseEther(String(XP_AMOUNT));
    const baselineFlow = async (user: number): Promise<Flow> => {
      const started = performance.now();
      const sender = walletOf(user);
      const populated = await apps[sender]
        .getFunction('rewardXP')
        .populateTransaction(baselineReceivers[user], amount, actionId);
      const gasLimit = await provider.estimateGas({ ...populated, from: senders[sender].address });
      const sent = await managers[sender].sendTransaction({ ...populated, gasLimit });
      const receipt = await sent.wait(1, FLOW_TIMEOUT_MS);
      if (receipt?.status !== 1) throw new Error(`baseline: transaction ${sent.hash} failed`);
      return { latency: performance.now() - started };
    };

    const run = async (flow: (user: number) => Promise<Flow>, seconds: number): Promise<Phase> => {
      const flows: Flow[] = [];
      let failures = 0;
      let firstFailure: string | undefined;
      const t0 = performance.now();
      const deadline = t0 + seconds * 1000;
      await Promise.all(
        Array.from({ length: options.users }, async (_, user) => {
          while (performance.now() < deadline) {
            try {
              flows.push(await flow(user));
            } catch (error) {
              failures += 1;
              firstFailure ??= (error as Error).message;
            }
          }
        }),
      );
      return { flows, seconds: (performance.now() - t0) / 1000, failures, firstFailure };
    };

    const sides = { laurel: laurelFlow, baseline: baselineFlow };
    const phases: Record<keyof typeof sides, Phase[]> = { laurel: [], baseline: [] };
    let peakRss = 0;
    for (let round = 0; round <= options.rounds; round += 1) {
      const order: (keyof typeof sides)[] = round % 2 === 0 ? ['laurel', 'baseline'] : ['baseline', 'laurel'];
      for (const side of order) {
        // Laurel's phases sent from the same wallets: each baseline phase starts from the node's count.
        if (side === 'baseline') for (const manager of managers) manager.reset();
        const rss = sampleRss();
        const phase = await run(
          sides[side],
          round === 0 ? WARM_UP_SECONDS : options.seconds / options.rounds,
        );
        const peak = rss.stop();
        if (side === 'laurel') peakRss = Math.max(peakRss, peak);
        if (round > 0) phases[side].push(phase);
      }
    }
    // Deliveries of the last flows may still be on their way: wait for them a moment, not forever.
    const laurelFlows = phases.laurel.flatMap((phase) => phase.flows);
    const waitUntil = performance.now() + 10_000;
    while (laurelFlows.some((flow) => !receiver.arrivals.has(flow.hash!)) && performance.now() < waitUntil) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const summary = (side: keyof typeof sides) => {
      const all = phases[side];
      const flows = all.flatMap((phase) => phase.flows);
      const seconds = all.reduce((total, phase) => total + phase.seconds, 0);
      const latencies = flows.map((flow) => flow.latency).sort((a, b) => a - b);
      return {
        perSecond: flows.length / seconds,
        count: flows.length,
        seconds,
        failures: all.reduce((n, phase) => n + phase.failures, 0),
        firstFailure: all.find((phase) => phase.firstFailure)?.firstFailure,
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        p99: percentile(latencies, 99),
      };
    };
    const laurelSummary = summary('laurel');
    const baselineSummary = summary('baseline');
    const webhookDelays = laurelFlows
      .filter((flow) => receiver.arrivals.has(flow.hash!))
      .map((flow) => receiver.arrivals.get(flow.hash!)! - flow.receiptAt!)
      .sort((a, b) => a - b);
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const line = (label: string, s: ReturnType<typeof summary>, to: string) =>
      `${label.padEnd(10)} ${s.perSecond.toFixed(1).padStart(7)} rewards/s  (${s.count} in ${s.seconds.toFixed(1)} s, ` +
      `failures ${s.failures}); request → ${to}: p50 ${ms(s.p50)}, p95 ${ms(s.p95)}, p99 ${ms(s.p99)}` +
      (s.firstFailure ? `\n           first failure: ${s.firstFailure.slice(0, 300)}` : '');
    console.log('');
    console.log(line('Laurel', laurelSummary, 'visible in the profile'));
    console.log(line('baseline', baselineSummary, 'receipt'));
    console.log(
      `webhooks: ${webhookDelays.length} of ${laurelFlows.length} transaction events arrived; receipt → webhook: ` +
        `p50 ${ms(percentile(webhookDelays, 50))}, p95 ${ms(percentile(webhookDelays, 95))}, ` +
        `p99 ${ms(percentile(webhookDelays, 99))}`,
    );
    console.log(
      `Laurel's steps, p50 / p99: ` +
        STEPS.map((step) => {
          const times = laurelFlows.map((flow) => flow.steps![step]).sort((a, b) => a - b);
          return `${step} ${ms(percentile(times, 50))} / ${ms(percentile(times, 99))}`;
        }).join(', '),
    );
    if (webhookDelays.length < laurelFlows.length) {
      const deliveries = await laurel.services.prisma.webhookDelivery.groupBy({
        by: ['status'],
        _count: true,
      });
      console.log(`webhook deliveries by status: ${JSON.stringify(deliveries)}`);
    }
    console.log('');
    console.log(
      `ratio Laurel / baseline: ${(laurelSummary.perSecond / baselineSummary.perSecond).toFixed(2)} (target >= 0.8); ` +
        `Laurel's p99 request → visible ${ms(laurelSummary.p99)} (target < 150 ms at 16 users)`,
    );
    console.log(
      `peak RSS of this process during Laurel's phases (Laurel, its worker and indexer, the users): ${(peakRss / MB).toFixed(0)} MB`,
    );
  } finally {
    await local.stop();
    await receiver.stop();
  }
}

main().catch((error: unknown) => {
  console.error('bench-flow failed:', error);
  process.exitCode = 1;
});
