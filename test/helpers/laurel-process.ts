/**
 * Laurel as `npm start` runs it: the built service (dist/src/main.js) in a child process, with
 * no configuration but PORT, DATA_DIR and LOG_LEVEL. For start/stop and fault tests, which belong
 * to the `service` project of jest.config.js: its global setup builds dist/ once for the run.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/embedded/ports';
import { setByGlobalSetup } from './database';
import { waitUntil } from './wait';

const root = path.resolve(__dirname, '../..');

/**
 * A file of the built service (`dist/<file>`), which the global setup of the `service` project of
 * jest.config.js builds for the run (its files wait for the build: service-build.ts): a test file
 * that runs the build belongs to that project.
 */
export function builtFile(file: string): string {
  setByGlobalSetup('TEST_SERVICE_BUILD_RESULT');
  return path.join(root, 'dist', file);
}

/** A fresh data folder the `postgres` user can reach (as root, PostgreSQL runs as `postgres`). */
export function makeDataDir(): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-start-'));
  chmodSync(dataDir, 0o755);
  return dataDir;
}

/**
 * A fresh data folder as a first `npm start` left it (global-setup-service.ts prepares one per run),
 * for the tests of later starts; a test of the first start takes makeDataDir().
 */
export async function preparedDataDir(): Promise<string> {
  const resultFile = setByGlobalSetup('TEST_PREPARED_DATA_DIR_RESULT');
  await waitUntil('the prepared data folder', () => existsSync(resultFile), 300_000);
  const prepared = JSON.parse(readFileSync(resultFile, 'utf8')) as {
    ok: boolean;
    dataDir?: string;
    output: string;
  };
  if (!prepared.ok || !prepared.dataDir)
    throw new Error(`preparing a data folder failed:\n${prepared.output}`);
  const dataDir = makeDataDir();
  // -a: PostgreSQL's files keep their owner (as root, the server runs as `postgres`).
  execFileSync('cp', ['-a', `${prepared.dataDir}/.`, dataDir]);
  // Each copy's server on a port of its own: the stored one is the same in every copy.
  const stateFile = path.join(dataDir, 'postgres.json');
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { port: number; password: string };
  writeFileSync(stateFile, JSON.stringify({ ...state, port: await freePort() }), { mode: 0o600 });
  return dataDir;
}

export interface LaurelProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Spawns the service; it may exit at once (a failed start), see `exited`. With `ownGroup`, it leads
 * a process group of its own, which signalGroup signals as a deploy does (`npm start`'s group).
 */
export function spawnLaurel(
  dataDir: string,
  env: Record<string, string> = {},
  { ownGroup = false }: { ownGroup?: boolean } = {},
): LaurelProcess {
  const child = spawn(process.execPath, [builtFile('src/main.js')], {
    cwd: root,
    detached: ownGroup,
    // NODE_ENV unset as under `npm start` (jest sets it to 'test', which changes library defaults).
    env: {
      ...process.env,
      NODE_ENV: '',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      CHAINS: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export interface StartedLaurel extends LaurelProcess {
  url: string;
}

/**
 * Spawns the service and waits for its URLs: `readyWithinMs` (60 s) at most, which a test of a
 * start asserts; the run's one preparation (global-setup-service.ts) allows more, as a first start
 * on a machine busy with the run's other files can take longer.
 */
export async function startLaurelProcess(
  dataDir: string,
  env: Record<string, string> = {},
  options: { ownGroup?: boolean; readyWithinMs?: number } = {},
): Promise<StartedLaurel> {
  const { readyWithinMs = 60_000, ...spawnOptions } = options;
  const started = spawnLaurel(dataDir, env, spawnOptions);
  const url = await new Promise<string>((resolve, reject) => {
    // However the wait ends: its timers would otherwise keep the process (jest's, for the global
    // setup's start) alive.
    const settle = () => {
      clearInterval(poll);
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      settle();
      // Not left running (with its PostgreSQL and anvil) past the test.
      started.child.kill('SIGTERM');
      reject(new Error(`no URLs within ${readyWithinMs / 1000} s:\n${started.output()}`));
    }, readyWithinMs);
    void started.exited.then((code) => {
      settle();
      reject(new Error(`exited with ${code}:\n${started.output()}`));
    });
    const poll = setInterval(() => {
      // Every role prints its health URL once ready.
      const match = /health\s+(http:\/\/\S+)\/health/.exec(started.output());
      if (match) {
        settle();
        resolve(match[1]);
      }
    }, 50);
  });
  return { ...started, url };
}

/** Sends `signal` (`times` times at once) and resolves with the exit code. */
export async function stopLaurelProcess(
  started: LaurelProcess,
  signal: NodeJS.Signals,
  times = 1,
): Promise<number | null> {
  for (let i = 0; i < times; i++) started.child.kill(signal);
  return started.exited;
}

/** Sends `signal` to the process group the service leads (spawned with `ownGroup`); resolves on its exit. */
export async function signalGroup(started: LaurelProcess, signal: NodeJS.Signals): Promise<number | null> {
  process.kill(-started.child.pid!, signal);
  return started.exited;
}

/** Lines of `ps` naming `folder` (postgres, anvil and Laurel's own processes on it). */
export function processesUsing(folder: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(folder) && !line.includes('ps -eo'));
}

/**
 * The status of a plain request, its body read to the end: a body left unread keeps its
 * connection open after the test, and with it the test worker.
 */
export async function statusOf(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
}

/** One JSON-RPC call (to anvil). */
export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}
