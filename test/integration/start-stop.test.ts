import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  makeDataDir,
  processesUsing,
  rpc,
  spawnLaurel,
  startLaurelProcess,
  stopLaurelProcess,
  statusOf,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

const root = path.resolve(__dirname, '../..');

/**
 * `npm start` as a user runs it: the built service on an empty data folder, with no configuration
 * but PORT and DATA_DIR. It must print its URLs, answer, stop cleanly on SIGTERM/SIGINT leaving no
 * postgres or anvil behind, and find its data (database and chain state) again on the next start.
 */
let dataDir: string;

beforeAll(() => {
  dataDir = makeDataDir();
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it('starts with nothing configured, stops cleanly, and restarts on the same data', async () => {
  const first = await startLaurelProcess(dataDir);
  expect(first.output()).toMatch(/postgres\s+embedded PostgreSQL/);
  expect(first.output()).toMatch(/chain\s+local \(chain id 31337\)/);
  expect(first.output()).toMatch(/REST\s+http:\/\/\S+\/v1/);
  expect(await statusOf(`${first.url}/health`)).toBe(200);
  const typename = await fetch(`${first.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  expect(await typename.json()).toEqual({ data: { __typename: 'Query' } });
  const factory = /factory (0x[0-9a-fA-F]{40})/.exec(first.output())![1];
  const chainUrl = /anvil on (http:\/\/\S+),/.exec(first.output())![1];
  // Leave a mark on the chain that must survive the restart.
  await rpc(chainUrl, 'anvil_mine', ['0x5']);
  const blocksBefore = Number(await rpc<string>(chainUrl, 'eth_blockNumber'));

  // The output is part of the expectation so that a failure shows why the process exited.
  expect({ code: await stopLaurelProcess(first, 'SIGTERM'), output: first.output() }).toMatchObject({
    code: 0,
  });
  expect(processesUsing(dataDir)).toEqual([]);
  // Every line is Laurel's JSON: no warning of Node's or a library's (a pooled connection's
  // settings queued ahead of its first statement made node-postgres warn of a deprecation).
  expect(first.output()).not.toMatch(/Warning/);

  const second = await startLaurelProcess(dataDir);
  expect(second.output()).toMatch(/migrations\s+database is up to date/);
  expect(second.output()).toContain(`factory ${factory}`);
  const secondChainUrl = /anvil on (http:\/\/\S+),/.exec(second.output())![1];
  expect(Number(await rpc<string>(secondChainUrl, 'eth_blockNumber'))).toBeGreaterThanOrEqual(blocksBefore);
  // Ctrl-C under `npm start`: the terminal's SIGINT and npm's forwarded one arrive together.
  expect({ code: await stopLaurelProcess(second, 'SIGINT', 2), output: second.output() }).toMatchObject({
    code: 0,
  });
  expect(second.output()).toContain('laurel: stopped');
  expect(processesUsing(dataDir)).toEqual([]);
}, 180_000);

/** `script` gives `npm start` a terminal (a pseudo-terminal): Ctrl-C is the byte \x03 typed into it. */
const haveScript = spawnSync('script', ['--version']).status === 0;

(haveScript ? it : it.skip)(
  'Ctrl-C of npm start on a terminal: a few lines between stopping and stopped, no stack trace',
  async () => {
    const folder = makeDataDir();
    try {
      const terminal = spawn('script', ['-qfec', 'npm start', '/dev/null'], {
        cwd: root,
        env: { ...process.env, NODE_ENV: '', PORT: '0', DATA_DIR: folder, DATABASE_URL: '', CHAINS: '' },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      terminal.stdout!.on('data', (chunk) => (output += chunk));
      const exited = new Promise<void>((resolve) => terminal.once('exit', () => resolve()));
      await waitUntil('npm start ready', async () => /chains\s+local/.test(output) || undefined, 90_000);
      terminal.stdin!.write('\x03');
      await exited;
      const lines = output.replace(/\r/g, '').split('\n');
      const from = lines.findIndex((line) => line.includes('SIGINT received, stopping'));
      const to = lines.findIndex((line) => line.includes('laurel: stopped'));
      expect({ from: from >= 0, to: to > from, output }).toMatchObject({ from: true, to: true });
      const between = lines.slice(from + 1, to);
      expect(between.length).toBeLessThanOrEqual(10);
      expect(between.filter((line) => /^\s+at |Error:|\{$/.test(line))).toEqual([]);
      expect(processesUsing(folder)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
  180_000,
);

it('SIGTERM to npm start alone (a supervisor signalling its pid) stops Laurel, and npm exits 0', async () => {
  const folder = makeDataDir();
  try {
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: { ...process.env, NODE_ENV: '', PORT: '0', DATA_DIR: folder, DATABASE_URL: '', CHAINS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout!.on('data', (chunk) => (output += chunk));
    npm.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    await waitUntil('npm start ready', async () => /chains\s+local/.test(output) || undefined, 90_000);
    npm.kill('SIGTERM');
    // npm forwards the signal to its script's process, which is Laurel itself (`exec`), not a shell
    // that would die of it and leave Laurel running without a parent.
    expect({ code: await exited, output }).toMatchObject({ code: 0 });
    expect(output).toContain('laurel: SIGTERM received, stopping');
    expect(output).toContain('laurel: stopped');
    expect(processesUsing(folder)).toEqual([]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 180_000);

it('a start that fails rejects with its output, and its wait leaves no timer running', async () => {
  const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
  const before = timers();
  const folder = makeDataDir();
  try {
    await expect(startLaurelProcess(folder, { PORT: 'not-a-port' })).rejects.toThrow(
      /exited with 1:[\s\S]*PORT/,
    );
    // A timer left running kept jest from exiting after a run whose global setup start failed.
    expect(timers()).toBe(before);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

it('a taken port fails the start before the rest of Laurel loads, with no migration line', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  const folder = makeDataDir();
  const loadedFile = path.join(folder, 'loaded-modules.json');
  try {
    // What it loaded, not how long it took: a wall-time bound fails on a loaded machine.
    const laurel = spawnLaurel(folder, {
      PORT: String(port),
      NODE_OPTIONS: `--require ${path.resolve(__dirname, '../fixtures/preload/loaded-modules.cjs')}`,
      LOADED_MODULES_FILE: loadedFile,
    });
    expect({ code: await laurel.exited, output: laurel.output() }).toMatchObject({
      code: 1,
      output: expect.stringContaining(`port ${port} is in use; set PORT`),
    });
    expect(laurel.output()).not.toMatch(/migrations|postgres/);
    const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
    expect(loaded).toContainEqual(expect.stringMatching(/dist\/src\/server\/http-ports\.js$/));
    const heavy =
      /dist\/src\/server\/laurel\.js$|node_modules\/(ethers|@prisma\/client|@apollo\/server|type-graphql|graphile-worker|express)\//;
    expect(loaded.filter((file) => heavy.test(file))).toEqual([]);
  } finally {
    taken.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

it('writes every log line, in order, before the process exits, while its thread pool is busy', async () => {
  const folder = makeDataDir();
  const fifo = path.join(folder, 'busy');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  // The built logger as the service makes it, in a process whose one thread-pool thread is busy
  // (as a slow DNS lookup keeps it) until the test opens the FIFO: the lines, then the service's exit.
  const script = `
    const fs = require('node:fs');
    const { createLogger } = require(${JSON.stringify(path.join(root, 'dist/src/logger.js'))});
    fs.open(${JSON.stringify(fifo)}, 'r', () => undefined);
    const log = createLogger('info');
    for (let line = 0; line < 20; line++) log.info({ line }, 'logged');
    process.exit(0);
  `;
  const child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = () => output.split('\n').filter(Boolean);
  try {
    // Node's exit waits for its thread pool: freed once every line the process could write is out.
    await waitUntil('the lines written before the exit', () => lines().length >= 19);
    // Opened once the pool thread waits in its open of the FIFO (until then: ENXIO).
    const writer = await waitUntil('the pool thread waiting on the FIFO', () => {
      try {
        return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
        throw error;
      }
    });
    closeSync(writer);
    expect(await exited).toBe(0);
    expect(lines().map((line) => (JSON.parse(line) as { line: number }).line)).toEqual(
      Array.from({ length: 20 }, (_, line) => line),
    );
  } finally {
    child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  }
});
