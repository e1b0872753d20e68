import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Transaction, Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { anvilDevPrivateKeys, chainConfigOf, startTestChain } from '../helpers/chain';
import { request } from '../helpers/laurel';
import {
  makeDataDir,
  preparedDataDir,
  processesUsing,
  rpc,
  spawnLaurel,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
  statusOf,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * Faults as an operator meets them, on the built service (`npm start`): processes really killed
 * with SIGKILL (node alone, its watchdog too, the postmaster, anvil), then what Laurel does about it.
 */
const dataDirs: string[] = [];
/** A fresh folder, or (`prepared`) one as a first start left it, for a test of later starts. */
async function newDataDir({ prepared = false } = {}): Promise<string> {
  const dataDir = prepared ? await preparedDataDir() : makeDataDir();
  dataDirs.push(dataDir);
  return dataDir;
}
const running: StartedLaurel[] = [];
async function start(dataDir: string, env: Record<string, string> = {}): Promise<StartedLaurel> {
  const started = await startLaurelProcess(dataDir, env);
  running.push(started);
  return started;
}

afterEach(async () => {
  for (const started of running.splice(0)) {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      await stopLaurelProcess(started, 'SIGTERM');
    }
  }
});

afterAll(() => {
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
});

const postmasterPid = (dataDir: string) =>
  Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
const anvilPid = (dataDir: string) => Number(readFileSync(path.join(dataDir, 'anvil', 'anvil.pid'), 'utf8'));
const watchdogPidOf = (laurelPid: number) =>
  processesUsing(`laurel-watchdog ${laurelPid}`).map((line) => Number(line.trim().split(/\s+/)[0]))[0];
const chainUrlOf = (started: StartedLaurel) => /anvil on (http:\/\/\S+),/.exec(started.output())![1];

it('SIGKILL of node alone: postgres and anvil do not outlive it, and the next start works', async () => {
  const dataDir = await newDataDir({ prepared: true });
  const first = await start(dataDir);
  expect(processesUsing(dataDir).length).toBeGreaterThan(0);

  first.child.kill('SIGKILL');
  await first.exited;
  await waitUntil('no process left on the data folder', () =>
    processesUsing(dataDir).length === 0 ? true : undefined,
  );

  const second = await start(dataDir);
  expect(second.output()).not.toMatch(/cleaned/);
  expect(await statusOf(`${second.url}/ready`)).toBe(200);
  expect(await stopLaurelProcess(second, 'SIGTERM')).toBe(0);
  expect(processesUsing(dataDir)).toEqual([]);
}, 180_000);

it('orphans of a Laurel that died with its watchdog are stopped by the next start, saying so in one line', async () => {
  const dataDir = await newDataDir({ prepared: true });
  const first = await start(dataDir);
  const orphans = [postmasterPid(dataDir), anvilPid(dataDir)];
  process.kill(watchdogPidOf(first.child.pid!), 'SIGKILL');
  first.child.kill('SIGKILL');
  await first.exited;
  for (const pid of orphans) expect(() => process.kill(pid, 0)).not.toThrow();

  const second = await start(dataDir);
  // On a pipe, the start-up lines are JSON lines of the logger: their `msg` is the line.
  const cleaned = second
    .output()
    .split('\n')
    .filter((line) => line.includes('cleaned'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  expect(cleaned).toEqual([
    `laurel: cleaned     stopped PostgreSQL (pid ${orphans[0]}) and anvil (pid ${orphans[1]}) left running on ${dataDir} by a Laurel that died`,
  ]);
  expect(await statusOf(`${second.url}/ready`)).toBe(200);

  // A second Laurel on the same folder is refused while this one runs.
  const intruder = spawnLaurel(dataDir);
  expect(await intruder.exited).toBe(1);
  expect(intruder.output()).toContain(`another Laurel (pid ${second.child.pid}) is using ${dataDir}`);
  expect(await statusOf(`${second.url}/ready`)).toBe(200);

  expect(await stopLaurelProcess(second, 'SIGTERM')).toBe(0);
  expect(processesUsing(dataDir)).toEqual([]);
}, 180_000);

it('a taken port fails the start with a message naming PORT, leaving nothing running', async () => {
  const dataDir = await newDataDir();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const laurel = spawnLaurel(dataDir, { PORT: String(port) });
    expect(await laurel.exited).toBe(1);
    expect(laurel.output()).toContain(`laurel: failed to start: port ${port} is in use; set PORT`);
    expect(laurel.output()).not.toMatch(/listening/);
    expect(processesUsing(dataDir)).toEqual([]);
  } finally {
    blocker.close();
  }
}, 180_000);

it('a DATABASE_URL nothing answers fails the start with a message naming it, leaving nothing running', async () => {
  const dataDir = await newDataDir();
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const laurel = spawnLaurel(dataDir, { DATABASE_URL: `postgres://laurel:secret@127.0.0.1:${port}/laurel` });
  expect(await laurel.exited).toBe(1);
  expect(laurel.output()).toContain(
    `laurel: failed to start: DATABASE_URL: cannot connect to 127.0.0.1:${port}: connect ECONNREFUSED`,
  );
  expect(laurel.output()).not.toContain('secret');
  expect(processesUsing(dataDir)).toEqual([]);
}, 180_000);

it('SIGKILL of the postmaster: 503s, never 500s, and Laurel recovers by itself', async () => {
  const dataDir = await newDataDir({ prepared: true });
  const laurel = await start(dataDir, { LOG_LEVEL: 'info' });
  const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
  const keys = () => fetch(`${laurel.url}/v1/keys`, { headers: { 'x-api-key': apiKey } });
  expect((await keys()).status).toBe(200);

  process.kill(postmasterPid(dataDir), 'SIGKILL');
  const seen = new Set<number>();
  await waitUntil(
    'the restarted database',
    async () => {
      const response = await keys();
      seen.add(response.status);
      if (response.status === 503) {
        expect(await response.json()).toEqual({ status: 'failed', error: 'Database unavailable' });
      }
      const ready = await fetch(`${laurel.url}/ready`);
      seen.add(ready.status);
      return response.status === 200 &&
        ready.status === 200 &&
        laurel.output().includes('PostgreSQL restarted')
        ? true
        : undefined;
    },
    60_000,
  );
  expect([...seen].filter((status) => status !== 200 && status !== 503)).toEqual([]);
  expect(laurel.output()).toContain('PostgreSQL stopped unexpectedly (SIGKILL); restarting it');
}, 180_000);

it('SIGKILL of anvil: restarted with its saved state, and nonces follow the chain again', async () => {
  const dataDir = await newDataDir({ prepared: true });
  const laurel = await start(dataDir, { LOG_LEVEL: 'info' });
  const chainUrl = chainUrlOf(laurel);
  const factory = /factory (0x[0-9a-fA-F]{40})/.exec(laurel.output())![1];
  await rpc(chainUrl, 'anvil_mine', ['0x3']);
  const blocks = Number(await rpc<string>(chainUrl, 'eth_blockNumber'));
  // anvil writes its state every second: wait for a dump that holds these blocks.
  const stateFile = path.join(dataDir, 'anvil', 'state.json');
  await waitUntil('a state dump with the mined blocks', () => {
    try {
      const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { block?: { number?: string } };
      return Number(state.block?.number ?? 0) >= blocks ? true : undefined;
    } catch {
      return undefined; // not written yet, or being written
    }
  });

  // A transaction mined just before anvil is killed: it may or may not be in the last state dump.
  const wallet = new Wallet(anvilDevPrivateKeys(6)[5]);
  const apiKey = await issueApiKey(laurel.url, wallet);
  const sendApp = async (name: string) => {
    const built = await request(laurel.url, 'POST', '/v1/app/new', {
      apiKey,
      body: { chain: 'local', name },
    });
    expect(built.status).toBe(200);
    const unsigned = built.body.unsignedTransaction as { nonce: number };
    const signed = await wallet.signTransaction(unsigned);
    const sent = await request(laurel.url, 'POST', '/v1/transactions/execute-and-wait', {
      apiKey,
      body: { chain: 'local', signed_transaction: signed },
    });
    return { nonce: unsigned.nonce, sent };
  };
  expect((await sendApp('Mined before the crash')).sent).toMatchObject({
    status: 200,
    body: { status: 'success' },
  });

  process.kill(anvilPid(dataDir), 'SIGKILL');
  await waitUntil(
    'the restarted chain',
    async () => {
      const ready = await fetch(`${laurel.url}/ready`);
      return ready.status === 200 && laurel.output().includes('anvil restarted') ? true : undefined;
    },
    60_000,
  );
  expect(laurel.output()).toContain('anvil stopped unexpectedly (signal SIGKILL); restarting it');
  expect(Number(await rpc<string>(chainUrl, 'eth_blockNumber'))).toBeGreaterThanOrEqual(blocks);
  expect(await rpc<string>(chainUrl, 'eth_getCode', [factory, 'latest'])).not.toBe('0x');

  // Whether or not the chain kept it, the next build uses the chain's nonce and is mined at once.
  const chainNonce = Number(
    await rpc<string>(chainUrl, 'eth_getTransactionCount', [wallet.address, 'pending']),
  );
  const started = Date.now();
  const after = await sendApp('After the crash');
  expect(after.nonce).toBe(chainNonce);
  expect(after.sent).toMatchObject({ status: 200, body: { status: 'success' } });
  expect(Date.now() - started).toBeLessThan(15_000);
}, 180_000);

it('SIGKILL of node during an execute-and-wait: once its wait would have ended, the receipt is followed and recorded', async () => {
  // A chain of the test's own, which outlives Laurel (the embedded anvil dies with it), mining only when told.
  const chain = await startTestChain();
  try {
    const dataDir = await newDataDir();
    const WAIT_SECONDS = 3;
    const env = {
      LOCAL_CHAIN: 'off',
      CHAINS: JSON.stringify([chainConfigOf(chain)]),
      EXECUTE_WAIT_TIMEOUT_SECONDS: String(WAIT_SECONDS),
    };
    const first = await start(dataDir, env);
    const wallet = chain.wallets[5];
    const apiKey = await issueApiKey(first.url, wallet);
    const built = await request(first.url, 'POST', '/v1/app/new', {
      apiKey,
      body: { chain: 'local', name: 'Sent before a crash' },
    });
    expect(built.status).toBe(200);
    const signed = await wallet.signTransaction(built.body.unsignedTransaction as object);
    const hash = Transaction.from(signed).hash!;
    await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
    const sentAt = Date.now();
    const waiting = request(first.url, 'POST', '/v1/transactions/execute-and-wait', {
      apiKey,
      body: { chain: 'local', signed_transaction: signed },
    }).catch(() => null);
    await waitUntil('the transaction in the node’s pool', async () =>
      (await rpc(chain.rpcUrl, 'eth_getTransactionByHash', [hash])) ? true : undefined,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await waiting).toBeNull();
    await rpc(chain.rpcUrl, 'evm_mine');
    await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);

    // The request that followed the receipt is gone; past the end of its wait, a receipt job does.
    await waitUntil('the end of the wait', () =>
      Date.now() > sentAt + WAIT_SECONDS * 1000 ? true : undefined,
    );
    const second = await start(dataDir, { ...env, LOG_LEVEL: 'info' });
    const pending = async () => {
      const metrics = await (await fetch(`${second.url}/metrics`)).text();
      return /^laurel_transactions_pending\{chain="local"\} (\d+)$/m.exec(metrics)?.[1];
    };
    await waitUntil(
      'the receipt recorded',
      async () => ((await pending()) === '0' ? true : undefined),
      60_000,
    );
    expect(second.output()).toContain('transactions still pending after their execute-and-wait ended');
  } finally {
    await chain.stop();
  }
}, 180_000);
