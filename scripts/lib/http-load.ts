/**
 * An HTTP load generator in a process of its own, like wrk or autocannon: a benchmark's clients must
 * not share the event loop (and the CPU time slices) of the server they measure, or every request's
 * client work (sending, parsing, timing) is queued behind the server's and counted in its latency.
 *
 * The benchmark calls startLoadClient(), which forks this file; each run() sends the child a job
 * (base URL, API keys, the request paths, clients, seconds) over the IPC channel and resolves with
 * what the child measured. Every side of a benchmark (Laurel, its baseline) gets the same generator.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';

export interface LoadJob {
  baseUrl: string;
  /** Client i sends keys[i % keys.length] as X-API-KEY; none when empty. */
  apiKeys: readonly string[];
  /** The i-th request of a run is paths[i % paths.length]. */
  paths: readonly string[];
  concurrency: number;
  /** Measured for this long, after `warmUpSeconds` unmeasured. */
  seconds: number;
  warmUpSeconds: number;
}

export interface Measured {
  perSecond: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  /** Answers other than 200, and connection errors. */
  errors: number;
  /** Requests answered in all, warm-up included. */
  requests: number;
}

export interface LoadClient {
  run(job: LoadJob): Promise<Measured>;
  stop(): Promise<void>;
}

/** Forks the generator process; it waits for jobs until stopped. */
export async function startLoadClient(): Promise<LoadClient> {
  const child = fork(__filename, ['--load-client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`load client exited with ${code}`)));
  });
  return {
    run: (job) => runInChild(child, job),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

function runInChild(child: ChildProcess, job: LoadJob): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`load client exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (measured: Measured) => {
      child.off('exit', onExit);
      resolve(measured);
    });
    child.send(job);
  });
}

/** In the child: `concurrency` keep-alive clients, each sending its next request once answered. */
async function load(job: LoadJob): Promise<Measured> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  const get = (path: string, client: number) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const headers = job.apiKeys.length ? { 'x-api-key': job.apiKeys[client % job.apiKeys.length] } : {};
      const req = http.get(`${job.baseUrl}${path}`, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${res.statusCode} ${path}`)),
        );
      });
      req.on('error', reject);
    });
  // The measured run goes on where the warm-up stopped: it does not repeat (and so find cached) its requests.
  let next = 0;
  const run = async (seconds: number, record: boolean): Promise<Measured> => {
    const latencies: number[] = [];
    let errors = 0;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: job.concurrency }, async (_, client) => {
        while (performance.now() < deadline) {
          const path = job.paths[next++ % job.paths.length];
          try {
            const ms = await get(path, client);
            if (record) latencies.push(ms);
          } catch {
            errors += 1;
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return { perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors, requests: 0 };
  };
  await run(job.warmUpSeconds, false);
  const measured = await run(job.seconds, true);
  agent.destroy();
  return { ...measured, requests: next };
}

if (process.argv.includes('--load-client') && process.send) {
  process.on('message', (job: LoadJob) => {
    void load(job).then((measured) => process.send!(measured));
  });
  process.on('disconnect', () => process.exit(0));
  process.send('ready');
}
