/**
 * Supervises a local anvil (Foundry) chain: the binary shipped by the `@foundry-rs/anvil-<platform>`
 * npm package, on 127.0.0.1, chain id 31337, anvil's default dev mnemonic
 * ("test test ... junk"), optionally persisting its state to a file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { anvilExitStateFile, chooseAnvilState, saveAnvilState } from './anvil-state';
import { anvilPidFile } from './data-folder';
import { freePort, ServerStartError } from './ports';
import { restartWithBackoff, type SupervisorReport } from './supervisor';
import { guardChildProcess } from './watchdog';
import { setTimeout as sleep } from 'node:timers/promises';

export const ANVIL_CHAIN_ID = 31337;
export const ANVIL_HOST = '127.0.0.1';
/** anvil's default mnemonic (used when none is given); its first accounts are funded. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export interface StartAnvilOptions {
  /**
   * Keep the chain in this file: loaded at start, saved there (when its state agrees with its
   * history) every `saveIntervalMs` and when stopped (anvil-state.ts).
   */
  stateFile?: string;
  /** How often the chain is saved to `stateFile` (default 1 s). */
  saveIntervalMs?: number;
  /** Start from this state (an `anvil_dumpState` or `--dump-state` file), which is never written. */
  loadState?: string;
  /** Port to listen on; default: a free port chosen by the OS. */
  port?: number;
  /** Receives each line anvil prints (stdout and stderr). */
  log?: (line: string) => void;
  /** How long to wait for anvil to answer `eth_chainId` (default 30 s). */
  startTimeoutMs?: number;
  /** Restart anvil (same port, same state file) when it stops on its own, with backoff. */
  supervise?: boolean;
  /** One line per supervision event (stopped, restarted, retrying). */
  report?: SupervisorReport;
  /** Runs after each restart, before it is reported (e.g. redeploy what the state file lacked). */
  onRestart?: () => Promise<void>;
}

export interface AnvilInstance {
  rpcUrl: string;
  chainId: number;
  port: number;
  /** The anvil process id (it changes when the supervisor restarts anvil). */
  readonly pid: number;
  /**
   * Saves the chain (with a state file), then SIGTERM (anvil saves it too), then SIGKILL after 5 s.
   * Safe to call more than once.
   */
  stop(): Promise<void>;
}

const PLATFORM_PACKAGES: Record<string, Record<string, string>> = {
  linux: { x64: '@foundry-rs/anvil-linux-amd64', arm64: '@foundry-rs/anvil-linux-arm64' },
  darwin: { x64: '@foundry-rs/anvil-darwin-amd64', arm64: '@foundry-rs/anvil-darwin-arm64' },
  win32: { x64: '@foundry-rs/anvil-win32-amd64' },
};

/** Path of the anvil binary from the installed platform package. */
export function resolveAnvilBinary(): string {
  const binaryName = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const preferred = PLATFORM_PACKAGES[process.platform]?.[process.arch];
  const candidates = [
    ...(preferred ? [preferred] : []),
    ...Object.values(PLATFORM_PACKAGES[process.platform] ?? {}).filter((p) => p !== preferred),
  ];
  const tried: string[] = [];
  for (const pkg of candidates) {
    try {
      const dir = path.dirname(require.resolve(`${pkg}/package.json`));
      const binary = path.join(dir, 'bin', binaryName);
      if (fs.existsSync(binary)) return binary;
      tried.push(`${binary} (missing)`);
    } catch {
      tried.push(`${pkg} (not installed)`);
    }
  }
  throw new Error(
    `No anvil binary for ${process.platform}/${process.arch}: install @foundry-rs/anvil` +
      (tried.length ? `; tried ${tried.join(', ')}` : ''),
  );
}

/** Rejects when something already listens on `port` (so a foreign node is never mistaken for ours). */
function assertPortFree(port: number, host = ANVIL_HOST): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Cannot start anvil: port ${port} on ${host} is already in use (Address already in use)`
            : `Cannot start anvil on port ${port}: ${error.message}`,
        ),
      ),
    );
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

// Children still running, each with the temporary cache folder to remove (null beside a state
// file: the next start empties that one): killed synchronously, and their temporary folders
// removed, if this process exits without stopping them.
const liveChildren = new Map<ChildProcess, string | null>();
let exitHookInstalled = false;
function trackChild(child: ChildProcess, temporaryCache: string | null): void {
  liveChildren.set(child, temporaryCache);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const [c, cache] of liveChildren) {
        // SIGTERM, not SIGKILL: anvil still dumps its state after we are gone.
        try {
          c.kill('SIGTERM');
        } catch {
          // already gone
        }
        if (cache) fs.rmSync(cache, { recursive: true, force: true });
      }
    });
  }
}

class LineSplitter {
  private rest = '';
  constructor(private readonly onLine: (line: string) => void) {}
  push(chunk: Buffer | string): void {
    const text = this.rest + chunk.toString();
    const lines = text.split(/\r?\n/);
    this.rest = lines.pop() ?? '';
    for (const line of lines) if (line.length > 0) this.onLine(line);
  }
  flush(): void {
    if (this.rest.length > 0) this.onLine(this.rest);
    this.rest = '';
  }
}

/** One JSON-RPC call to anvil; rejects with its error. */
async function anvilRpc<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  signal?: AbortSignal,
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal,
  });
  const body = (await response.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined || body.result === undefined)
    throw new Error(`unexpected ${method} answer: ${JSON.stringify(body)}`);
  return body.result;
}

async function rpcChainId(url: string, signal: AbortSignal): Promise<number> {
  const result = await anvilRpc<unknown>(url, 'eth_chainId', [], signal);
  if (typeof result !== 'string') throw new Error(`unexpected eth_chainId answer: ${JSON.stringify(result)}`);
  return Number(BigInt(result));
}

/** A started anvil process; `exited` resolves (with how it ended) when the process is gone. */
interface RunningAnvil {
  instance: AnvilInstance;
  exited: Promise<string>;
}

async function startOnce(binary: string, port: number, opts: StartAnvilOptions): Promise<RunningAnvil> {
  const args = [
    '--host',
    ANVIL_HOST,
    '--port',
    String(port),
    '--chain-id',
    String(ANVIL_CHAIN_ID),
    '--quiet',
  ];
  // anvil keeps the states of older blocks on disk, by default under ~/.foundry/anvil/tmp, and
  // leaves them there when it stops (half a gigabyte for a few thousand blocks): a folder of its
  // own instead, removed once the process is gone. Beside a state file it is `states/`, which a
  // start also empties (what an anvil killed with Laurel left; one Laurel holds a data folder).
  let cachePath: string;
  if (opts.stateFile) {
    const stateFile = path.resolve(opts.stateFile);
    // anvil silently fails to dump into a directory that does not exist.
    fs.mkdirSync(path.dirname(stateFile), { recursive: true });
    for (const { level, message } of chooseAnvilState(stateFile)) opts.report?.(level, message);
    // anvil saves at exit only (what a SIGTERM from the watchdog leaves when Laurel died), beside
    // the file Laurel saves to: its periodic saves could not be trusted (anvil-state.ts).
    if (fs.existsSync(stateFile)) args.push('--load-state', stateFile);
    args.push('--dump-state', anvilExitStateFile(stateFile));
    cachePath = path.join(path.dirname(stateFile), 'states');
    fs.rmSync(cachePath, { recursive: true, force: true });
    fs.mkdirSync(cachePath);
  } else {
    cachePath = fs.mkdtempSync(path.join(os.tmpdir(), 'laurel-anvil-cache-'));
  }
  if (opts.loadState) args.push('--load-state', opts.loadState);
  args.push('--cache-path', cachePath);

  // Detached: a process group of its own, so a terminal's Ctrl-C reaches Laurel (which stops anvil
  // in its turn, after what uses it) and not anvil directly.
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, detached: true });
  trackChild(child, opts.stateFile ? null : cachePath);
  const releaseGuard = child.pid ? guardChildProcess(child.pid, 'SIGTERM') : () => undefined;

  const recent: string[] = [];
  const onLine = (line: string) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
    opts.log?.(line);
  };
  const stdout = new LineSplitter(onLine);
  const stderr = new LineSplitter(onLine);
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  let exited = false;
  let exitDescription = '';
  // Aborts a pending readiness probe as soon as anvil exits.
  const exitAbort = new AbortController();
  const exitPromise = new Promise<string>((resolve) => {
    const done = (description: string) => {
      if (exited) return;
      exited = true;
      exitAbort.abort();
      exitDescription = description;
      liveChildren.delete(child);
      releaseGuard();
      fs.rmSync(cachePath, { recursive: true, force: true });
      stdout.flush();
      stderr.flush();
      resolve(description);
    };
    child.once('exit', (code, signal) => done(signal ? `signal ${signal}` : `exit code ${code}`));
    child.once('error', (error) => done(`spawn error: ${error.message}`));
  });

  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (!exited) child.kill('SIGKILL');
        resolve();
      }, 5000);
    });
    await Promise.race([exitPromise, killed.then(() => exitPromise)]);
    if (timer) clearTimeout(timer);
  };

  const rpcUrl = `http://${ANVIL_HOST}:${port}`;
  const timeoutMs = opts.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (!exited && Date.now() < deadline) {
    try {
      const chainId = await rpcChainId(
        rpcUrl,
        AbortSignal.any([exitAbort.signal, AbortSignal.timeout(2000)]),
      );
      if (exited) break;
      if (chainId !== ANVIL_CHAIN_ID) {
        await stop();
        throw new ServerStartError(
          `anvil at ${rpcUrl} answered chain id ${chainId}, expected ${ANVIL_CHAIN_ID}`,
          false,
        );
      }
      return { instance: { rpcUrl, chainId, port, pid: child.pid ?? -1, stop }, exited: exitPromise };
    } catch (error) {
      if (error instanceof ServerStartError) throw error;
      lastError = error;
      await Promise.race([sleep(50), exitPromise]);
    }
  }

  const output = recent.join('\n');
  if (exited) {
    throw new ServerStartError(
      `anvil exited during start-up (${exitDescription}) [${binary} ${args.join(' ')}]` +
        (output ? `:\n${output}` : ''),
      /address already in use/i.test(output),
    );
  }
  await stop();
  throw new ServerStartError(
    `anvil did not answer eth_chainId at ${rpcUrl} within ${timeoutMs} ms` +
      (lastError instanceof Error ? ` (last error: ${lastError.message})` : '') +
      (output ? `; its output:\n${output}` : ''),
    false,
  );
}

/**
 * Starts anvil and resolves once it answers `eth_chainId`. Rejects with anvil's output when it
 * exits or does not answer in time. When no port is given, a free one is chosen (and another one
 * tried if it was taken in the meantime). With `supervise`, an anvil that stops on its own is
 * restarted on the same port and state file; with a state file, its pid is kept next to it
 * (data-folder.ts finds an orphan by it).
 */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const binary = resolveAnvilBinary();
  if (opts.port !== undefined) await assertPortFree(opts.port);
  const attempts = opts.port === undefined ? 3 : 1;
  let current: RunningAnvil;
  for (let attempt = 1; ; attempt += 1) {
    const port = opts.port ?? (await freePort());
    try {
      current = await startOnce(binary, port, opts);
      break;
    } catch (error) {
      if (error instanceof ServerStartError && error.addressInUse && attempt < attempts) continue;
      throw error;
    }
  }
  const { rpcUrl, chainId, port } = current.instance;

  const report = opts.report ?? (() => undefined);
  let stopping = false;
  const stopSignal = new AbortController();
  let restarting: Promise<unknown> | undefined;

  const stateFile = opts.stateFile ? path.resolve(opts.stateFile) : undefined;
  const pidFile = stateFile ? anvilPidFile(stateFile) : undefined;
  // Saves of the chain: one at a time, none once stopping has begun but the last (see stop). A save
  // reads the whole chain, so its cost grows with it: a round is skipped while no block was mined
  // since the last save.
  let saving: Promise<void> | undefined;
  let alive = true;
  let savedBlock = -1;
  const save = async (file: string, evenUnchanged: boolean): Promise<void> => {
    try {
      if (!evenUnchanged && Number(await anvilRpc<string>(rpcUrl, 'eth_blockNumber')) === savedBlock) return;
      const saved = await saveAnvilState((method, params) => anvilRpc(rpcUrl, method, params), file);
      if (saved.usable) savedBlock = saved.bestBlock;
    } catch (error) {
      // anvil is down (its supervisor restarts it) or the disk refused: the next round tries again.
      if (alive) report('warn', `the local chain was not saved to ${file}: ${(error as Error).message}`);
    }
  };
  const saves = stateFile
    ? setInterval(() => {
        if (saving || !alive || stopping) return;
        saving = save(stateFile, false).finally(() => (saving = undefined));
      }, opts.saveIntervalMs ?? 1000).unref()
    : undefined;
  const watch = (running: RunningAnvil) => {
    if (pidFile) fs.writeFileSync(pidFile, String(running.instance.pid));
    void running.exited.then((description) => {
      alive = false;
      if (stopping || !opts.supervise) return;
      report('warn', `anvil stopped unexpectedly (${description}); restarting it`);
      restarting = restartWithBackoff({
        name: 'anvil',
        start: () => startOnce(binary, port, opts),
        signal: stopSignal.signal,
        report,
      }).then(async (restarted) => {
        if (!restarted) return;
        if (stopping) return restarted.instance.stop();
        current = restarted;
        alive = true;
        savedBlock = -1;
        watch(restarted);
        await opts.onRestart?.();
        report('info', `anvil restarted (pid ${restarted.instance.pid}) on ${rpcUrl}`);
      });
    });
  };
  watch(current);

  return {
    rpcUrl,
    chainId,
    port,
    get pid() {
      return current.instance.pid;
    },
    stop: async () => {
      stopping = true;
      stopSignal.abort();
      clearInterval(saves);
      await restarting?.catch(() => undefined);
      await saving;
      // What was mined up to now, saved while nothing that uses the chain runs any more.
      if (stateFile && alive) await save(stateFile, true);
      await current.instance.stop();
      if (pidFile) fs.rmSync(pidFile, { force: true });
    },
  };
}
