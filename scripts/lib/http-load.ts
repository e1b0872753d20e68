/**
 * An HTTP load generator in a process of its own, like wrk or autocannon: a benchmark's clients must
 * not share the event loop (and the CPU time slices) of the server they measure, or every request's
 * client work (sending, parsing, timing) is queued behind the server's and counted in its latency.
 *
 * The benchmark calls startLoadClient(), which forks this file; each run() sends the child a job
 * (base URL, API keys, the request paths, clients, seconds) over the IPC channel and resolves with
 * what the child measured. Every side of a benchmark (Laurel, its baseline) gets the same generator.
 * Its connections are bare sockets speaking just enough HTTP/1.1 (see Connection), so that it takes
 * as little of the machine's CPU from the servers as it can. Not autocannon: it takes more CPU per
 * request and reports latencies in whole milliseconds (docs/benchmarks.md, bench:read).
 */
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { forkWithIpc } from './ipc-child';

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
  /** Answers other than 200, and connection errors. */
  errors: number;
  /** Requests answered in all, warm-up included. */
  requests: number;
  /** The measured stretch: its length, and each answer's latency in ms, ascending. */
  seconds: number;
  latencies: number[];
}

export interface LoadClient {
  run(job: LoadJob): Promise<Measured>;
  stop(): Promise<void>;
}

/** Forks the generator process; it waits for jobs until stopped. */
export async function startLoadClient(): Promise<LoadClient> {
  const { child, stop } = await forkWithIpc<unknown>(__filename, ['--load-client']);
  return { run: (job) => runInChild(child, job), stop };
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

/**
 * One keep-alive HTTP/1.1 connection sending a GET at a time, on a bare socket: what wrk does, and
 * far less CPU per request than node:http's client (which would take it from the servers on a
 * small machine). Answers must carry Content-Length (Express's res.json and res.send do).
 */
class Connection {
  private readonly socket: net.Socket;
  private received: Buffer[] = [];
  private receivedBytes = 0;
  private answered: ((status: number) => void) | null = null;
  private failed: ((error: Error) => void) | null = null;

  constructor(url: URL) {
    this.socket = net.connect(Number(url.port), url.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('error', (error) => this.failed?.(error));
    this.socket.on('close', () => this.failed?.(new Error('connection closed')));
  }

  /** Sends a GET of `path` and resolves with the answer's status once its body is read. */
  get(path: string, headers: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.answered = resolve;
      this.failed = reject;
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: load\r\n${headers}\r\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    const data = this.received.length === 1 ? chunk : Buffer.concat(this.received, this.receivedBytes);
    this.received = [data];
    const headerEnd = data.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = data.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.failed?.(new Error(`an answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    if (this.receivedBytes < headerEnd + 4 + Number(length[1])) return;
    this.received = [];
    this.receivedBytes = 0;
    const answered = this.answered;
    this.answered = this.failed = null;
    answered?.(Number(head.slice(9, 12)));
  }
}

/** In the child: `concurrency` keep-alive connections, each sending its next request once answered. */
async function load(job: LoadJob): Promise<Measured> {
  const url = new URL(job.baseUrl);
  let connections = Array.from({ length: job.concurrency }, () => new Connection(url));
  const headersOf = (client: number) =>
    job.apiKeys.length ? `x-api-key: ${job.apiKeys[client % job.apiKeys.length]}\r\n` : '';
  // The measured run goes on where the warm-up stopped: it does not repeat (and so find cached) its requests.
  let next = 0;
  const run = async (seconds: number, record: boolean): Promise<Measured> => {
    const latencies: number[] = [];
    let errors = 0;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      connections.map(async (_, client) => {
        const headers = headersOf(client);
        while (performance.now() < deadline) {
          const path = job.paths[next++ % job.paths.length];
          const sent = performance.now();
          try {
            const status = await connections[client].get(path, headers);
            if (status !== 200) errors += 1;
            else if (record) latencies.push(performance.now() - sent);
          } catch {
            errors += 1;
            connections[client].close();
            connections[client] = new Connection(url);
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      perSecond: latencies.length / elapsed,
      errors,
      requests: 0,
      seconds: elapsed,
      latencies,
    };
  };
  try {
    await run(job.warmUpSeconds, false);
    const measured = await run(job.seconds, true);
    return { ...measured, requests: next };
  } finally {
    for (const connection of connections) connection.close();
    connections = [];
  }
}

if (process.argv.includes('--load-client') && process.send) {
  process.on('message', (job: LoadJob) => {
    void load(job).then((measured) => process.send!(measured));
  });
  process.on('disconnect', () => process.exit(0));
  process.send('ready');
}
