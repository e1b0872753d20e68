import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm start` as a user runs it: the built service on an empty data folder, with no configuration
 * but PORT and DATA_DIR. It must print its URLs, answer, stop cleanly on SIGTERM/SIGINT leaving no
 * postgres or anvil behind, and find its data (database and chain state) again on the next start.
 */
const root = path.resolve(__dirname, '../..');
let dataDir: string;

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
}

async function start(): Promise<Started> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: root,
    // NODE_ENV unset as under `npm start` (jest sets it to 'test', which changes library defaults).
    env: {
      ...process.env,
      NODE_ENV: '',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      CHAINS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URLs within 60 s:\n${output}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    const poll = setInterval(() => {
      const match = /GraphQL\s+(http:\/\/\S+)\/graphql/.exec(output);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]);
      }
    }, 50);
  });
  return { child, output: () => output, url };
}

async function stop(started: Started, signal: NodeJS.Signals, times = 1): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < times; i++) started.child.kill(signal);
  return exited;
}

function processesUsing(folder: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(folder) && !line.includes('ps -eo'));
}

beforeAll(() => {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
    },
  );
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-start-'));
  chmodSync(dataDir, 0o755);
}, 120_000);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it('starts with nothing configured, stops cleanly, and restarts on the same data', async () => {
  const first = await start();
  expect(first.output()).toMatch(/postgres\s+embedded PostgreSQL/);
  expect(first.output()).toMatch(/chain\s+local \(chain id 31337\)/);
  expect(first.output()).toMatch(/REST\s+http:\/\/\S+\/v1/);
  expect((await fetch(`${first.url}/health`)).status).toBe(200);
  const typename = await fetch(`${first.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  expect(await typename.json()).toEqual({ data: { __typename: 'Query' } });
  const factory = /factory (0x[0-9a-fA-F]{40})/.exec(first.output())![1];
  const chainUrl = /anvil on (http:\/\/\S+),/.exec(first.output())![1];
  // Leave a mark on the chain that must survive the restart.
  const mined = await fetch(chainUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x5'] }),
  });
  expect(mined.status).toBe(200);
  const blockNumber = async (url: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    return Number(((await response.json()) as { result: string }).result);
  };
  const blocksBefore = await blockNumber(chainUrl);

  expect(await stop(first, 'SIGTERM')).toBe(0);
  expect(processesUsing(dataDir)).toEqual([]);

  const second = await start();
  expect(second.output()).toMatch(/migrations\s+database is up to date/);
  expect(second.output()).toContain(`factory ${factory}`);
  const secondChainUrl = /anvil on (http:\/\/\S+),/.exec(second.output())![1];
  expect(await blockNumber(secondChainUrl)).toBeGreaterThanOrEqual(blocksBefore);
  // Ctrl-C under `npm start`: the terminal's SIGINT and npm's forwarded one arrive together.
  expect(await stop(second, 'SIGINT', 2)).toBe(0);
  expect(second.output()).toContain('laurel: stopped');
  expect(processesUsing(dataDir)).toEqual([]);
}, 180_000);
