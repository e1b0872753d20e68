/**
 * Builds past the reservation TTL: POST /v1/reward/XP for ONE sender, continuously, never sending
 * what is built (a backend whose users decline to sign), for longer than
 * NONCE_RESERVATION_TTL_SECONDS. Each build holds its nonce until its lease runs out; from then on
 * builds reuse lapsed nonces while the sender holds tens of thousands of reservations. It prints
 * each window's builds/s, p50 and p99, how many builds reused a lapsed nonce, and the last window
 * against the first (targets: ≥ 0.8× the builds/s, p99 ≤ 2×).
 *
 *   npm run bench:reservations
 *
 * Knobs (defaults): BENCH_TTL_SECONDS (60: the TTL Laurel runs with, shorter than the default
 * 120 s so the run takes three minutes), BENCH_SECONDS (3 × TTL), BENCH_WINDOW_SECONDS (60: the
 * last minute against the first, the first before any lease runs out),
 * BENCH_CONCURRENCY (16). Laurel, the embedded PostgreSQL and anvil are those of bench:build
 * (scripts/lib/local-laurel.ts); the clients share Laurel's process, as there.
 */
import { Wallet } from 'ethers';
import { envInt } from './lib/env';
import { MB, buildRewardXP, sampleRss, startLocalLaurel } from './lib/local-laurel';
import { percentile } from './lib/percentile';

const ttlSeconds = envInt('BENCH_TTL_SECONDS', 60, 3600);
const options = {
  ttlSeconds,
  seconds: envInt('BENCH_SECONDS', 3 * ttlSeconds, 7200),
  windowSeconds: envInt('BENCH_WINDOW_SECONDS', 60, 600),
  concurrency: envInt('BENCH_CONCURRENCY', 16, 256),
};
const WARM_UP_SECONDS = 3;

interface Window {
  latencies: number[];
  /** Builds whose nonce is below the highest handed out before: a lapsed (reused) nonce. */
  reused: number;
}

async function main(): Promise<void> {
  if (options.seconds <= options.ttlSeconds + options.windowSeconds) {
    throw new Error('BENCH_SECONDS must exceed BENCH_TTL_SECONDS by more than a window');
  }
  console.log(
    `bench-reservations: 1 sender, concurrency ${options.concurrency}, NONCE_RESERVATION_TTL_SECONDS=${options.ttlSeconds}, ` +
      `${options.seconds} s in windows of ${options.windowSeconds} s, nothing sent`,
  );
  const local = await startLocalLaurel({
    senders: 1,
    connections: options.concurrency,
    env: { NONCE_RESERVATION_TTL_SECONDS: String(options.ttlSeconds) },
  });
  try {
    const receiver = Wallet.createRandom().address;
    const run = async (seconds: number, onBuild: (startedAt: number, nonce: number) => void) => {
      let failures = 0;
      let firstFailure: string | undefined;
      const deadline = performance.now() + seconds * 1000;
      const worker = async () => {
        while (performance.now() < deadline) {
          const startedAt = performance.now();
          try {
            onBuild(startedAt, (await buildRewardXP(local, 0, receiver)).nonce);
          } catch (error) {
            failures += 1;
            firstFailure ??= (error as Error).message;
          }
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, worker));
      return { failures, firstFailure };
    };

    await run(WARM_UP_SECONDS, () => undefined);
    // The timed run starts with no reservation held (as bench:build's phases do).
    await local.laurel.services.prisma.$executeRaw`DELETE FROM nonce_reservations`;

    const windows: Window[] = [];
    /** When each nonce was last handed out: a nonce handed out again within its lease would be a bug. */
    const lastHandedOut = new Map<number, number>();
    let early = 0;
    let highest = -1;
    const t0 = performance.now();
    const rss = sampleRss();
    const { failures, firstFailure } = await run(options.seconds, (startedAt, nonce) => {
      const now = performance.now();
      const index = Math.floor((now - t0) / (options.windowSeconds * 1000));
      const window = (windows[index] ??= { latencies: [], reused: 0 });
      window.latencies.push(now - startedAt);
      if (nonce < highest) window.reused += 1;
      highest = Math.max(highest, nonce);
      const before = lastHandedOut.get(nonce);
      // A lease starts in the database a moment before the answer reaches the client: allow 1 s.
      if (before !== undefined && now - before < (options.ttlSeconds - 1) * 1000) early += 1;
      lastHandedOut.set(nonce, now);
    });
    const peakRss = rss.stop();

    // Only whole windows: the last partial one (the run's end) is left out.
    const whole = windows.slice(0, Math.floor(options.seconds / options.windowSeconds));
    const figures = whole.map((window) => {
      const sorted = [...window.latencies].sort((a, b) => a - b);
      return {
        perSecond: sorted.length / options.windowSeconds,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        reused: window.reused,
      };
    });
    console.log('');
    console.log('window (s)   builds/s   p50 ms   p99 ms   reused a lapsed nonce');
    figures.forEach((figure, i) => {
      const from = i * options.windowSeconds;
      console.log(
        `${`${from}-${from + options.windowSeconds}`.padEnd(10)} ${figure.perSecond.toFixed(0).padStart(10)} ` +
          `${figure.p50.toFixed(1).padStart(8)} ${figure.p99.toFixed(1).padStart(8)} ${String(figure.reused).padStart(10)}`,
      );
    });
    const first = figures[0];
    const last = figures[figures.length - 1];
    console.log('');
    console.log(
      `last window / first: builds/s ${(last.perSecond / first.perSecond).toFixed(2)} (target >= 0.8), ` +
        `p99 ${(last.p99 / first.p99).toFixed(2)} (target <= 2)`,
    );
    console.log(
      `builds ${figures.reduce((n, figure) => n + figure.perSecond * options.windowSeconds, 0)}, distinct nonces ` +
        `${lastHandedOut.size}, failures ${failures}, nonces handed out again within their lease: ${early}` +
        (firstFailure ? `\nfirst failure: ${firstFailure.slice(0, 200)}` : ''),
    );
    console.log(`peak RSS of this process (Laurel and the clients): ${(peakRss / MB).toFixed(0)} MB`);
  } finally {
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error('bench-reservations failed:', error);
  process.exitCode = 1;
});
