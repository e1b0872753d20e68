import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Interface, Transaction, Wallet, getAddress, parseUnits } from 'ethers';
import { appFactoryInterface, appInterface } from '../../src/chain/contracts';
import { issueApiKey } from '../helpers/auth';
import { anvilDevPrivateKeys } from '../helpers/chain';
import { eventArg, type Receipt } from '../helpers/flow';
import { request } from '../helpers/laurel';
import {
  preparedDataDir,
  processesUsing,
  rpc,
  signalGroup,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * The local set-up of `npm start` (Laurel, its embedded PostgreSQL and anvil) stopped at a random
 * moment under a load of rewards, as a deploy stops it (its process group signalled, SIGTERM or
 * SIGKILL) or as a machine does (every process SIGKILLed at once), then started again on the same
 * data folder. Then the index equals the chain (each user's profile XP is the token's balanceOf),
 * and every reward answered `success` is in the chain with its receipt, or, when the chain itself
 * was lost past its last save, Laurel no longer answers it as mined (nor an app created since then
 * as known).
 */
const seed = Number(process.env.LAUREL_TEST_SEED ?? Date.now() % 1_000_000);
let state = seed;
/** mulberry32: the moments of the stops follow from the seed (printed in every failure). */
function random(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const erc20 = new Interface(['function balanceOf(address) view returns (uint256)']);
const users = Array.from({ length: 6 }, () => Wallet.createRandom().address);
const LOAD_WORKERS = 4;

let dataDir: string;
let laurel: StartedLaurel;

/**
 * An app rewarding `users`, with an owner of its own: a stop may leave its wallet's next nonce
 * taken by a transaction cut on its way (another part of issue 44), which must not hold up the
 * next round.
 */
interface RewardingApp {
  owner: Wallet;
  apiKey: string;
  appId: string;
  xpToken: string;
}
const apps: RewardingApp[] = [];

const chainUrlOf = (started: StartedLaurel) => /anvil on (http:\/\/\S+),/.exec(started.output())![1];
// The load and the checks ask far more than a user's request budget allows.
const start = (env: Record<string, string> = {}) =>
  startLaurelProcess(
    dataDir,
    { LOG_LEVEL: 'info', RATE_LIMIT_MAX_REQUESTS: '1000000', ...env },
    { ownGroup: true },
  );

interface Success {
  hash: string;
  user: string;
}

/** Rewards sent through build → sign → execute-and-wait by LOAD_WORKERS clients until `stop()`. */
function rewardLoad(url: string, { owner, apiKey, appId }: RewardingApp) {
  const successes: Success[] = [];
  /** How many answers of each kind (`build 200`, `execute 409 nonce_gap`, ...), for failure messages. */
  const answers: Record<string, number> = {};
  const count = (what: string) => (answers[what] = (answers[what] ?? 0) + 1);
  let stopping = false;
  const worker = async () => {
    while (!stopping) {
      const user = users[Math.floor(random() * users.length)];
      try {
        const built = await request(url, 'POST', '/v1/reward/XP', {
          apiKey,
          body: { chain: 'local', app_id: appId, action_id: 'play', receiver: user, amount: 1 },
        });
        if (built.status !== 200) {
          count(`build ${built.status} ${JSON.stringify(built.body).slice(0, 120)}`);
          continue;
        }
        const signed = await owner.signTransaction(built.body.unsignedTransaction as Record<string, unknown>);
        const sent = await request(url, 'POST', '/v1/transactions/execute-and-wait', {
          apiKey,
          body: { chain: 'local', signed_transaction: signed },
        });
        count(`execute ${sent.status} ${String(sent.body.status ?? sent.body.code ?? '')}`);
        if (sent.status === 200 && sent.body.status === 'success') {
          successes.push({ hash: Transaction.from(signed).hash!, user });
        }
      } catch {
        // The service went away in the middle of the request: no answer, nothing to check.
      }
    }
  };
  const workers = Array.from({ length: LOAD_WORKERS }, worker);
  return {
    successes,
    answers,
    stop: async () => {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

const NO_SUCH_APP = 'no such app';

/**
 * Each user's XP in each app as the index answers it (profile) and as the chain holds it
 * (balanceOf). An app created after the chain's last save is gone with the rest after a kill: then
 * the chain has no code at its address, and the index must answer it as an unknown app.
 */
async function xpOfUsers(url: string, chainUrl: string) {
  const profiles: Record<string, string> = {};
  const balances: Record<string, string> = {};
  for (const { apiKey, appId, xpToken } of apps) {
    const onChain = (await rpc<string>(chainUrl, 'eth_getCode', [xpToken, 'latest'])) !== '0x';
    for (const user of users) {
      const profile = await request(url, 'GET', `/v1/profile?chain=local&user_id=${user}&app_id=${appId}`, {
        apiKey,
      });
      profiles[`${appId} ${user}`] =
        profile.status === 200
          ? parseUnits(String(profile.body.xp_balance), 18).toString()
          : profile.status === 404 && profile.body.error === 'App not found'
            ? NO_SUCH_APP
            : `${profile.status} ${JSON.stringify(profile.body)}`;
      const data = erc20.encodeFunctionData('balanceOf', [user]);
      balances[`${appId} ${user}`] = onChain
        ? BigInt(await rpc<string>(chainUrl, 'eth_call', [{ to: xpToken, data }, 'latest'])).toString()
        : NO_SUCH_APP;
    }
  }
  return { profiles, balances };
}

/** Waits (60 s at most) for every user's profile XP to equal balanceOf on the chain. */
async function expectIndexEqualToChain(chainUrl: string): Promise<void> {
  let last: Awaited<ReturnType<typeof xpOfUsers>> | undefined;
  let readFailure: unknown;
  await waitUntil(
    `[seed ${seed}] profiles equal to balanceOf for every user`,
    async () => {
      try {
        last = await xpOfUsers(laurel.url, chainUrl);
      } catch (error) {
        readFailure = error;
        throw error;
      }
      return JSON.stringify(last.profiles) === JSON.stringify(last.balances) ? true : undefined;
    },
    60_000,
  ).catch(() => undefined);
  if (readFailure)
    throw new Error(`[seed ${seed}] reading the XP of the users failed: ${String(readFailure)}`);
  if (JSON.stringify(last!.profiles) !== JSON.stringify(last!.balances)) {
    // A failure here is the indexer's: where it stands and what it said, which only this run shows.
    const ready = await fetch(`${laurel.url}/ready`)
      .then((response) => response.text())
      .catch(String);
    const indexerLines = laurel
      .output()
      .split('\n')
      .filter((line) => line.includes('"component":"indexer"'));
    console.log(
      `[seed ${seed}] /ready: ${ready}\nthe indexer's last lines:\n${indexerLines.slice(-10).join('\n')}`,
    );
  }
  // Past the wait, the last profiles against the last balances say more than "timed out".
  expect({ seed, profiles: last!.profiles }).toEqual({ seed, profiles: last!.balances });
}

/** A new app (build → sign → execute-and-wait) owned by the funded dev account `account`. */
async function newApp(account: number): Promise<RewardingApp> {
  const owner = new Wallet(anvilDevPrivateKeys(10)[account]);
  const apiKey = await issueApiKey(laurel.url, owner);
  const built = await request(laurel.url, 'POST', '/v1/app/new', {
    apiKey,
    body: { chain: 'local', name: `Restarts ${account}` },
  });
  const signed = await owner.signTransaction(built.body.unsignedTransaction as Record<string, unknown>);
  const sent = await request(laurel.url, 'POST', '/v1/transactions/execute-and-wait', {
    apiKey,
    body: { chain: 'local', signed_transaction: signed },
  });
  expect(sent.body.status).toBe('success');
  const appId = eventArg((sent.body.receipt as Receipt).logs, appFactoryInterface, 'AppCreated', 'app');
  const [token] = appInterface.decodeFunctionResult(
    'xpToken',
    await rpc<string>(chainUrlOf(laurel), 'eth_call', [
      { to: appId, data: appInterface.encodeFunctionData('xpToken') },
      'latest',
    ]),
  ) as unknown as [string];
  return { owner, apiKey, appId, xpToken: getAddress(token) };
}

/** Stops the whole local set-up: the process group, or (`everything`) every process SIGKILLed at once. */
async function stopSetUp(how: 'SIGTERM' | 'SIGKILL' | 'everything'): Promise<void> {
  if (how === 'everything') {
    // The watchdogs first: once node is dead they stop anvil with SIGTERM, which saves its state,
    // and a machine's crash gives them no such moment. Then node, which restarts what dies.
    const pids = [
      ...processesUsing(`laurel-watchdog ${laurel.child.pid}`).map((line) =>
        Number(line.trim().split(/\s+/)[0]),
      ),
      laurel.child.pid!,
      Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]),
      Number(readFileSync(path.join(dataDir, 'anvil', 'anvil.pid'), 'utf8')),
    ];
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await laurel.exited;
  } else {
    await signalGroup(laurel, how);
  }
  await waitUntil(`[seed ${seed}] no process left on the data folder`, () =>
    processesUsing(dataDir).length === 0 ? true : undefined,
  );
}

beforeAll(async () => {
  dataDir = await preparedDataDir();
  laurel = await start();
}, 120_000);

afterAll(async () => {
  if (laurel && laurel.child.exitCode === null && laurel.child.signalCode === null) {
    await stopLaurelProcess(laurel, 'SIGTERM');
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.each([
  ['SIGTERM', 7],
  ['SIGKILL', 8],
  ['everything', 9],
] as const)('the local set-up stopped (%s) at a random moment under a load of rewards', (how, account) => {
  it('starts again with the index equal to the chain, and every success in the chain or reported', async () => {
    const app = await newApp(account);
    apps.push(app);
    const load = rewardLoad(laurel.url, app);
    await waitUntil(`[seed ${seed}] a few rewards answered success`, () =>
      load.successes.length >= 3 ? true : undefined,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; answers: ${JSON.stringify(load.answers)}`);
    });
    // The random moment: somewhere in the next 3 s of load.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3000)));
    await stopSetUp(how);
    await load.stop();

    laurel = await start();
    const chainUrl = chainUrlOf(laurel);
    const lost: Success[] = [];
    for (const success of load.successes) {
      const receipt = await rpc<{ status: string } | null>(chainUrl, 'eth_getTransactionReceipt', [
        success.hash,
      ]);
      if (receipt) expect(receipt.status).toBe('0x1');
      else lost.push(success);
    }
    // A stop in order saves the chain after the last transaction. A kill can lose what was mined
    // since the last save that agreed with itself (at most LOCAL_CHAIN_SAVE_INTERVAL_MS: every
    // process killed, or anvil's save at exit taken while a block was being mined): Laurel then
    // no longer answers those rewards as mined.
    if (how === 'SIGTERM') expect({ seed, lost }).toEqual({ seed, lost: [] });
    for (const { hash } of lost) {
      const status = await request(laurel.url, 'GET', `/v1/transactions/${hash}`, { apiKey: app.apiKey });
      expect({ seed, hash, status: status.body.status }).not.toEqual({ seed, hash, status: 'success' });
    }

    await expectIndexEqualToChain(chainUrl);
  }, 300_000);
});

/**
 * A kill loses what the chain mined since its last save, which under load can be more blocks than
 * the index's undo window (64 on a local chain): the index cannot take them back one by one, and
 * the chain will never hold them again. Laurel then indexes the chain again from its start.
 */
it('a chain restored from a save older than the finality window is indexed again from its start', async () => {
  await stopLaurelProcess(laurel, 'SIGTERM');
  // No save but the one at the stop: the next kill loses every block mined meanwhile.
  laurel = await start({ LOCAL_CHAIN_SAVE_INTERVAL_MS: '3600000' });
  const app = await newApp(6);
  apps.push(app);
  const load = rewardLoad(laurel.url, app);
  await waitUntil(`[seed ${seed}] more rewards mined than the finality window holds`, () =>
    load.successes.length >= 100 ? true : undefined,
  );
  await load.stop();
  // Indexed to the head, the index's undo window no longer reaches the block of the last save.
  const head = Number(await rpc<string>(chainUrlOf(laurel), 'eth_blockNumber'));
  await waitUntil(`[seed ${seed}] the index at the chain's head`, async () => {
    const metrics = await (await fetch(`${laurel.url}/metrics`)).text();
    const indexed = /^laurel_indexer_indexed_block\{chain="local"\} (\d+)$/m.exec(metrics)?.[1];
    return Number(indexed) >= head ? true : undefined;
  });
  await stopSetUp('everything');

  // Laurel may send the lost transactions again (the app's creation among them): either way the
  // index must end equal to the chain.
  laurel = await start();
  const chainUrl = chainUrlOf(laurel);
  await expectIndexEqualToChain(chainUrl);
  expect(laurel.output()).toContain('it is indexed again from its start block');
}, 300_000);
