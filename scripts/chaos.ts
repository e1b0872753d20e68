/**
 * `npm run chaos -- --seconds N [--seed S]`: Laurel under load while its processes are killed,
 * paused and redeployed, then a check that nothing was lost. All on loopback, bounded in time.
 *
 * It starts Laurel as `npm start` does (the built dist/src/main.js, no DATABASE_URL nor CHAINS: an
 * embedded PostgreSQL and an embedded anvil with Laurel's contracts, in a fresh data folder), an
 * app owned by anvil's dev account 1 with the next `--wallets - 1` dev accounts as its operators,
 * an API key per wallet (challenge, signature, verify) and, per wallet, a webhook for `transaction`
 * events verified by an HTTPS receiver in this process (scripts/lib/webhook-receiver.ts). Then
 * `--users` users loop over the wallets: POST /v1/reward/XP → sign here → POST
 * /v1/transactions/execute or execute-and-wait (half each), rewarding one of 40 users. Meanwhile,
 * each once, at a moment drawn from the seed:
 *   - node SIGKILL: the node process is killed and started again (its watchdog stops the embedded
 *     PostgreSQL and anvil; the new start takes over the data folder, as after a crash);
 *   - postmaster SIGKILL: PostgreSQL's postmaster is killed; Laurel's supervisor restarts it;
 *   - anvil pause: anvil is stopped (SIGSTOP) for 3–8 s, then continued;
 *   - deploy: the process group gets SIGTERM (as a process manager signals it); once the process
 *     has exited, it is started again.
 * After `--seconds` (and 10 s after the last fault), it stops the load, has every wallet send once more, and
 * settles (at most `--settle-seconds`) until these hold, then prints what it did and found:
 *   - no answer was a 500;
 *   - no request was cut without an answer (reset, hung up, or not answered within 60 s) other
 *     than in a node SIGKILL; a refused connection (nothing listening) is not a cut;
 *   - the index equals the chain: each rewarded user's profile and the app's leaderboard against
 *     the XP token's balanceOf;
 *   - every transaction of the wallets mined on the chain was delivered to the receiver at least
 *     once (with valid signatures) and is a successful attempt in its webhook's delivery logs;
 *   - every wallet can still send (build → sign → execute-and-wait succeeds);
 *   - every fault was recovered from (the process or the database back within their bounds).
 * Exits with 1 when a check fails. The seed fixes the faults' order, moments and pause lengths and
 * the users' choices; the interleaving with the machine's timing is not reproducible.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, chmodSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  Contract,
  HDNodeWallet,
  JsonRpcProvider,
  Transaction,
  getAddress,
  hexlify,
  formatUnits,
  parseUnits,
  type ContractTransactionReceipt,
} from 'ethers';
import { appFactoryInterface, appInterface, xpTokenInterface } from '../src/chain/contracts';
import type { UnsignedTransactionJson } from '../src/chain/unsigned-transactions';
import { ANVIL_MNEMONIC } from '../src/embedded/anvil';
import { anvilPidFile } from '../src/embedded/data-folder';
import { freePort } from '../src/embedded/ports';
import { resolveDataDirectory } from '../src/embedded/postgres';
import { developmentCaFiles } from '../src/modules/webhooks/certificates';
import { apiKeyFor, JsonClient, JsonClientTimeout, type JsonAnswer } from './lib/local-laurel';
import { WebhookReceiver } from './lib/webhook-receiver';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    wallets: { type: 'string', default: '3' },
    users: { type: 'string', default: '8' },
    'settle-seconds': { type: 'string', default: '60' },
    keep: { type: 'boolean', default: false },
  },
});

function wholeNumber(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
  return value;
}

const SECONDS = wholeNumber('seconds', args.seconds, 20, 3600);
const SEED = wholeNumber('seed', args.seed ?? String(Math.floor(Math.random() * 2 ** 31)), 0, 2 ** 31);
const WALLETS = wholeNumber('wallets', args.wallets, 1, 9);
const USERS = wholeNumber('users', args.users, WALLETS, 64);
const SETTLE_SECONDS = wholeNumber('settle-seconds', args['settle-seconds'], 5, 600);
/** A request with no answer by then counts as cut (Laurel's own bounds are shorter). */
const REQUEST_TIMEOUT_MS = 60_000;
/** How long a start of Laurel may take (an embedded PostgreSQL recovering after a kill included). */
const START_TIMEOUT_MS = 120_000;
/** How long the postmaster may take to be back after its kill. */
const POSTGRES_BACK_MS = 60_000;
/** How long a deploy's stop may take: Laurel's grace (SHUTDOWN_GRACE_SECONDS, 10 s) and its stop steps. */
const DEPLOY_STOP_MS = 40_000;
/** How long anvil is paused (drawn between the two). */
const MIN_PAUSE_MS = 3000;
const MAX_PAUSE_MS = 8000;
/** The load goes on at least this long after the last fault (a fault at the end would test nothing). */
const LOAD_AFTER_FAULTS_MS = 10_000;
/** How long each wallet's final send may keep trying. */
const FINAL_SEND_MS = 30_000;
/** The users rewarded (so profiles and the leaderboard have several entries each). */
const REWARDED_USERS = 40;
const CHAIN = 'local';
const ACTION_ID = 'chaos';
const XP_DECIMALS = 18;
const root = path.resolve(__dirname, '../..');

/** mulberry32: a small seeded generator, enough for drawing moments and choices. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seededRandom(SEED);

const t0 = Date.now();
const clock = (at = Date.now()) => `${((at - t0) / 1000).toFixed(1).padStart(6)} s`;
const say = (line: string) => console.log(`[${clock()}] ${line}`);

// --- Laurel as `npm start` runs it ------------------------------------------------------------

interface Started {
  child: ChildProcess;
  pid: number;
  /** How the process ended: its signal or exit code. */
  exited: Promise<string>;
  /** The embedded anvil's RPC URL (a new port at each start). */
  rpcUrl: string;
  factory: string;
}

class Service {
  current: Started | undefined;
  readonly url: string;

  constructor(
    readonly folder: string,
    port: number,
    private readonly log: WriteStream,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Starts dist/src/main.js in a process group of its own and waits until it is ready. */
  async start(): Promise<Started> {
    const child = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // As under `npm start`: NODE_ENV unset, no DATABASE_URL nor CHAINS (the embedded ones).
        NODE_ENV: '',
        DATABASE_URL: '',
        CHAINS: '',
        PORT: new URL(this.url).port,
        DATA_DIR: this.folder,
        LOG_LEVEL: 'warn',
        // The load is a few wallets sending as fast as they can, not what the budget is for.
        RATE_LIMIT_MAX_REQUESTS: '1000000000',
      },
    });
    this.log.write(`\n===== ${new Date().toISOString()} start, pid ${child.pid}\n`);
    // Read until the process is ready; kept in the log file only after.
    let output: string | null = '';
    const onOutput = (chunk: Buffer) => {
      this.log.write(chunk);
      if (output !== null) output += chunk.toString('utf8');
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    const exited = new Promise<string>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)),
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    let ended: string | undefined;
    void exited.then((how) => (ended = how));
    for (;;) {
      const chain = /anvil on (http:\/\/[\d.]+:\d+), factory (0x[0-9a-fA-F]{40})/.exec(output ?? '');
      if (chain && /health\s+http:\/\//.test(output ?? '')) {
        output = null;
        this.current = { child, pid: child.pid!, exited, rpcUrl: chain[1], factory: chain[2] };
        return this.current;
      }
      if (ended) throw new Error(`Laurel exited during its start (${ended}); see ${this.log.path}`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`Laurel was not ready within ${START_TIMEOUT_MS / 1000} s; see ${this.log.path}`);
      }
      await sleep(50);
    }
  }

  /** Stops the current process: SIGTERM to its group, SIGKILL after `DEPLOY_STOP_MS`. */
  async stop(): Promise<void> {
    const current = this.current;
    if (!current) return;
    signalGroup(current.pid, 'SIGTERM');
    if (!(await within(current.exited, DEPLOY_STOP_MS))) {
      signalGroup(current.pid, 'SIGKILL');
      await current.exited;
    }
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = sleep(ms, 'late' as const);
  return (await Promise.race([promise.then(() => 'in time' as const), timer])) === 'in time';
}

function pidFrom(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0].trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The postmaster's pid while it accepts connections (postmaster.pid's status line says `ready`). */
function readyPostmaster(postmasterPidFile: string): number | null {
  try {
    const lines = readFileSync(postmasterPidFile, 'utf8').split('\n');
    return lines[7]?.trim() === 'ready' ? pidFrom(postmasterPidFile) : null;
  } catch {
    return null;
  }
}

// --- What the users did ----------------------------------------------------------------------

interface RequestRecord {
  endpoint: string;
  start: number;
  end: number;
  status?: number;
  /** How it failed without an answer: `refused` (nothing listening), `timeout`, or the error's code. */
  failure?: string;
}

interface SentTransaction {
  hash: string;
  wallet: number;
  nonce: number;
  mode: 'execute' | 'execute-and-wait';
  /** Date.now() when it was sent. */
  sentAt: number;
  /** What execute answered: `200 success`, `503 …`, `cut (ECONNRESET)`, ... */
  answer: string;
}

const requests: RequestRecord[] = [];
const sent: SentTransaction[] = [];
/** The first body of each endpoint's each non-2xx status, to say what they were. */
const samples = new Map<string, string>();

function failureOf(error: unknown): string {
  if (error instanceof JsonClientTimeout) return 'timeout';
  const { code, reusedSocket } = error as NodeJS.ErrnoException & { reusedSocket?: boolean };
  if (code === 'ECONNREFUSED') return 'refused';
  return `${code ?? (error as Error).message}${reusedSocket ? ' on a kept-alive connection' : ''}`;
}

/** A request to Laurel, recorded; null when it got no answer. */
async function call(
  client: JsonClient,
  endpoint: string,
  url: string,
  body: unknown,
  apiKey: string,
): Promise<JsonAnswer | null> {
  const record: RequestRecord = { endpoint, start: Date.now(), end: 0 };
  requests.push(record);
  try {
    const answer = await (body === undefined ? client.get(url, apiKey) : client.post(url, body, apiKey));
    record.status = answer.status;
    const key = `${endpoint} ${answer.status}`;
    if (answer.status >= 300 && !samples.has(key))
      samples.set(key, JSON.stringify(answer.body).slice(0, 240));
    return answer;
  } catch (error) {
    record.failure = failureOf(error);
    return null;
  } finally {
    record.end = Date.now();
  }
}

function describeAnswer(answer: JsonAnswer | null, failure: string | undefined): string {
  if (!answer) return `no answer (${failure})`;
  const body = answer.body as { status?: string; error?: string } | null;
  return `${answer.status} ${body?.status ?? ''}${body?.error ? ` ${body.error}` : ''}`.trim();
}

interface Setup {
  service: Service;
  client: JsonClient;
  wallets: HDNodeWallet[];
  keys: string[];
  appId: string;
  xpToken: string;
  webhookIds: string[];
  receiver: WebhookReceiver;
  rewarded: string[];
}

/** Build → sign → execute (or execute-and-wait): true when the execution was answered 200. */
async function rewardOnce(
  setup: Setup,
  wallet: number,
  user: string,
  mode: SentTransaction['mode'],
): Promise<{ ok: boolean; answer: string }> {
  const { client, service, keys } = setup;
  const built = await call(
    client,
    'POST /v1/reward/XP',
    `${service.url}/v1/reward/XP`,
    { chain: CHAIN, app_id: setup.appId, action_id: ACTION_ID, receiver: user, amount: 1 },
    keys[wallet],
  );
  const tx = (built?.body as { unsignedTransaction?: UnsignedTransactionJson } | null)?.unsignedTransaction;
  if (built?.status !== 200 || !tx)
    return { ok: false, answer: `build: ${describeAnswer(built, requests.at(-1)?.failure)}` };
  const signed = await setup.wallets[wallet].signTransaction({ ...tx, type: 2 });
  const record: SentTransaction = {
    hash: Transaction.from(signed).hash!.toLowerCase(),
    wallet,
    nonce: Number(tx.nonce),
    mode,
    sentAt: Date.now(),
    answer: '',
  };
  sent.push(record);
  const start = requests.length;
  const executed = await call(
    client,
    `POST /v1/transactions/${mode}`,
    `${service.url}/v1/transactions/${mode}`,
    { chain: CHAIN, signed_transaction: signed },
    keys[wallet],
  );
  record.answer = describeAnswer(executed, requests[start]?.failure);
  const body = executed?.body as { status?: string } | null;
  return { ok: executed?.status === 200 && body?.status === 'success', answer: record.answer };
}

// --- Faults -----------------------------------------------------------------------------------

const FAULT_KINDS = ['node SIGKILL', 'postmaster SIGKILL', 'anvil pause', 'deploy'] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

interface Fault {
  kind: FaultKind;
  at: number;
  /** When the system was whole again (Laurel ready, the postmaster ready, anvil continued). */
  recoveredAt?: number;
  detail: string;
  /** Why it did not recover as it should. */
  failure?: string;
}

async function injectFault(kind: FaultKind, setup: Setup): Promise<Fault> {
  const { service } = setup;
  const started = service.current!;
  const fault: Fault = { kind, at: Date.now(), detail: '' };
  say(`fault: ${kind}`);
  try {
    if (kind === 'node SIGKILL') {
      process.kill(started.pid, 'SIGKILL');
      await started.exited;
      const next = await service.start();
      fault.detail = `pid ${started.pid} killed; pid ${next.pid} ready after ${seconds(Date.now() - fault.at)}`;
    } else if (kind === 'deploy') {
      signalGroup(started.pid, 'SIGTERM');
      const stopped = await within(started.exited, DEPLOY_STOP_MS);
      if (!stopped) {
        fault.failure = `pid ${started.pid} had not exited ${DEPLOY_STOP_MS / 1000} s after SIGTERM (then SIGKILLed)`;
        signalGroup(started.pid, 'SIGKILL');
      }
      const how = await started.exited;
      const stoppedAt = Date.now();
      const next = await service.start();
      fault.detail =
        `pid ${started.pid} stopped in ${seconds(stoppedAt - fault.at)} (${how}); ` +
        `pid ${next.pid} ready after ${seconds(Date.now() - stoppedAt)}`;
    } else if (kind === 'postmaster SIGKILL') {
      const file = path.join(resolveDataDirectory(service.folder), 'postmaster.pid');
      const pid = readyPostmaster(file);
      if (!pid) throw new Error(`no running postmaster in ${file}`);
      process.kill(pid, 'SIGKILL');
      const deadline = Date.now() + POSTGRES_BACK_MS;
      let back: number | null = null;
      while (Date.now() < deadline) {
        back = readyPostmaster(file);
        if (back && back !== pid) break;
        await sleep(50);
      }
      if (!back || back === pid) fault.failure = `PostgreSQL not back within ${POSTGRES_BACK_MS / 1000} s`;
      else fault.detail = `pid ${pid} killed; pid ${back} ready after ${seconds(Date.now() - fault.at)}`;
    } else {
      const pid = pidFrom(anvilPidFile(path.join(service.folder, 'anvil', 'state.json')));
      if (!pid) throw new Error('no anvil pid file');
      const pauseMs = Math.round(MIN_PAUSE_MS + random() * (MAX_PAUSE_MS - MIN_PAUSE_MS));
      process.kill(pid, 'SIGSTOP');
      await sleep(pauseMs);
      process.kill(pid, 'SIGCONT');
      fault.detail = `pid ${pid} stopped for ${seconds(pauseMs)}`;
    }
    if (!fault.failure) fault.recoveredAt = Date.now();
  } catch (error) {
    fault.failure = (error as Error).message;
  }
  say(`  ${fault.failure ? `NOT RECOVERED: ${fault.failure}` : fault.detail}`);
  return fault;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// --- Setting up -------------------------------------------------------------------------------

async function waitMined(
  hashPromise: Promise<{ wait(): Promise<unknown> }>,
): Promise<ContractTransactionReceipt> {
  return (await (await hashPromise).wait()) as ContractTransactionReceipt;
}

function providerOn(rpcUrl: string): JsonRpcProvider {
  // cacheTimeout -1: every call goes to the node (ethers otherwise reuses answers for 250 ms).
  return new JsonRpcProvider(rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1 });
}

async function setUp(service: Service, client: JsonClient): Promise<Setup> {
  const started = service.current!;
  const provider = providerOn(started.rpcUrl);
  try {
    const wallets = Array.from({ length: WALLETS }, (_, i) =>
      HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${i + 1}`),
    );
    const owner = wallets[0].connect(provider);
    const factory = new Contract(started.factory, appFactoryInterface, owner);
    const created = await waitMined(factory.createApp('Chaos'));
    const appCreated = created.logs
      .map((log) => appFactoryInterface.parseLog(log))
      .find((event) => event?.name === 'AppCreated');
    const appId = getAddress(appCreated!.args.app as string);
    const app = new Contract(appId, appInterface, owner);
    for (const operator of wallets.slice(1)) await waitMined(app.addOperator(operator.address));
    const xpToken = getAddress((await app.xpToken()) as string);
    const keys = await Promise.all(wallets.map((wallet) => apiKeyFor(client, service.url, wallet)));

    const ca = developmentCaFiles(service.folder);
    const receiver = new WebhookReceiver({
      cert: readFileSync(ca.cert, 'utf8'),
      key: readFileSync(ca.key, 'utf8'),
    });
    await receiver.start();
    const webhookIds: string[] = [];
    for (const [i, key] of keys.entries()) {
      const hookPath = `/wallet-${i}`;
      const secret = await client.get(`${service.url}/v1/webhook/secret`, key);
      receiver.secrets.set(hookPath, (secret.body as { webhook_secret: string }).webhook_secret);
      const created = await client.post(
        `${service.url}/v1/webhook`,
        { url: receiver.url(hookPath), events: ['transaction'] },
        key,
      );
      const id = (created.body as { webhook?: { id: string } } | null)?.webhook?.id;
      if (created.status !== 201 || !id) throw new Error(`POST /v1/webhook: ${JSON.stringify(created.body)}`);
      const verified = await client.post(`${service.url}/v1/webhook/${id}/test`, {}, key);
      if ((verified.body as { webhook?: { disabled: boolean } } | null)?.webhook?.disabled !== false)
        throw new Error(`webhook ${id} not verified: ${JSON.stringify(verified.body)}`);
      webhookIds.push(id);
    }
    // Seeded addresses: the same users for the same seed.
    const rewarded = Array.from({ length: REWARDED_USERS }, () =>
      getAddress(hexlify(Uint8Array.from({ length: 20 }, () => Math.floor(random() * 256)))),
    );
    return { service, client, wallets, keys, appId, xpToken, webhookIds, receiver, rewarded };
  } finally {
    provider.destroy();
  }
}

// --- Checking ---------------------------------------------------------------------------------

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** At most `count` items of a list, and how many more there were. */
function some(items: string[], count = 5): string {
  return items.slice(0, count).join('; ') + (items.length > count ? `; … ${items.length - count} more` : '');
}

/** Every page of a paginated listing (`fetchPage(page)` answers one page's items). */
async function allPages<T>(fetchPage: (page: number) => Promise<T[] | null>): Promise<T[] | null> {
  const items: T[] = [];
  for (let page = 1; page <= 10_000; page++) {
    const found = await fetchPage(page);
    if (found === null) return null;
    items.push(...found);
    if (found.length < 100) return items;
  }
  return items;
}

/** What the chain and Laurel hold now: the checks that settle (index, deliveries, logs). */
async function examineSettled(setup: Setup): Promise<{ checks: Check[]; mined: number }> {
  const { service, client, keys } = setup;
  const provider = providerOn(service.current!.rpcUrl);
  try {
    const describe = (tx: SentTransaction) =>
      `${tx.hash.slice(0, 12)}… (wallet ${tx.wallet}, nonce ${tx.nonce}, sent at ${clock(tx.sentAt).trim()}, ` +
      `${tx.mode} answered ${tx.answer})`;
    // Mined: every transaction signed here that the chain has a receipt for.
    const receipts = await Promise.all(sent.map((tx) => provider.getTransactionReceipt(tx.hash)));
    const mined = sent.filter((_, i) => receipts[i] !== null);

    // The index against the chain.
    const xp = new Contract(setup.xpToken, xpTokenInterface, provider);
    const balances = new Map<string, bigint>();
    for (const user of setup.rewarded) balances.set(user.toLowerCase(), (await xp.balanceOf(user)) as bigint);
    const indexProblems: string[] = [];
    for (const user of setup.rewarded) {
      const answer = await client.get(
        `${service.url}/v1/profile?chain=${CHAIN}&app_id=${setup.appId}&user_id=${user}`,
        keys[0],
      );
      const balance = (answer.body as { xp_balance?: string } | null)?.xp_balance;
      const onChain = balances.get(user.toLowerCase())!;
      if (answer.status !== 200 || balance === undefined)
        indexProblems.push(`profile of ${user}: ${answer.status}`);
      else if (parseUnits(balance, XP_DECIMALS) !== onChain)
        indexProblems.push(
          `profile of ${user}: ${balance} XP, balanceOf ${formatUnits(onChain, XP_DECIMALS)}`,
        );
    }
    const board = await allPages(async (page) => {
      const answer = await client.get(
        `${service.url}/v1/leaderboard?chain=${CHAIN}&app_id=${setup.appId}&page=${page}&page_size=100`,
        keys[0],
      );
      return answer.status === 200 ? (answer.body as { user: string; xp_rewarded: string }[]) : null;
    });
    if (!board) indexProblems.push('the leaderboard did not answer 200');
    else {
      const listed = new Map(board.map((entry) => [entry.user.toLowerCase(), entry.xp_rewarded]));
      for (const [user, onChain] of balances) {
        const entry = listed.get(user);
        const indexed = entry === undefined ? 0n : parseUnits(entry, XP_DECIMALS);
        if (indexed !== onChain)
          indexProblems.push(
            `leaderboard: ${user} ${entry ?? 'absent'}, balanceOf ${formatUnits(onChain, XP_DECIMALS)}`,
          );
      }
      for (const user of listed.keys())
        if (!balances.has(user)) indexProblems.push(`leaderboard: ${user} was never rewarded`);
    }

    // Deliveries: at the receiver, and in the webhooks' logs.
    const delivered = new Set(setup.receiver.events.map((event) => event.hash));
    const undelivered = mined.filter((tx) => !delivered.has(tx.hash));
    const logged = new Set<string>();
    for (const [wallet, id] of setup.webhookIds.entries()) {
      const entries = await allPages(async (page) => {
        const answer = await client.get(
          `${service.url}/v1/webhook/${id}/logs?page=${page}&page_size=100`,
          keys[wallet],
        );
        type Entry = { successful: boolean; event: string; payload: { hash?: string } | null };
        return answer.status === 200 ? (answer.body as { data: Entry[] }).data : null;
      });
      for (const entry of entries ?? [])
        if (entry.successful && entry.event === 'transaction' && entry.payload?.hash)
          logged.add(entry.payload.hash.toLowerCase());
    }
    const unlogged = mined.filter((tx) => !logged.has(tx.hash));

    // Accepted (execute answered 200) but not on the chain: Laurel must say it was dropped.
    const unreported: string[] = [];
    for (const tx of sent.filter((tx, i) => tx.answer.startsWith('200') && receipts[i] === null)) {
      const answer = await client.get(
        `${service.url}/v1/transactions/${tx.hash}?chain=${CHAIN}`,
        keys[tx.wallet],
      );
      const status = (answer.body as { status?: string } | null)?.status;
      if (answer.status !== 200 || status !== 'dropped')
        unreported.push(`${describe(tx)}: Laurel's status ${answer.status} ${status ?? ''}`);
    }
    return {
      mined: mined.length,
      checks: [
        {
          name: 'the index equals the chain (profiles and the leaderboard vs balanceOf)',
          ok: indexProblems.length === 0,
          detail: indexProblems.length
            ? `${indexProblems.length} differences: ${some(indexProblems)}`
            : `${setup.rewarded.length} users holding ${formatUnits(
                [...balances.values()].reduce((a, b) => a + b, 0n),
                XP_DECIMALS,
              )} XP on the chain`,
        },
        {
          name: 'every mined transaction was delivered to the receiver',
          ok: undelivered.length === 0,
          detail: undelivered.length
            ? `${undelivered.length} of ${mined.length} never arrived: ${some(undelivered.map(describe))}`
            : `${mined.length} mined`,
        },
        {
          name: "every mined transaction is a successful attempt in its webhook's logs",
          ok: unlogged.length === 0,
          detail: unlogged.length
            ? `${unlogged.length} of ${mined.length} not logged: ${some(unlogged.map(describe))}`
            : `${mined.length} mined`,
        },
        {
          name: 'every transaction answered 200 is on the chain, or Laurel reports it dropped',
          ok: unreported.length === 0,
          detail: unreported.length ? `${unreported.length}: ${some(unreported)}` : 'all of them',
        },
      ],
    };
  } finally {
    provider.destroy();
  }
}

/**
 * Each stuck wallet's last answer, and what its users sent with the nonces the chain has not
 * reached (what became of the transactions the wallet waits for).
 */
async function explainStuck(setup: Setup, finals: (string | null)[]): Promise<string[]> {
  const provider = providerOn(setup.service.current!.rpcUrl);
  try {
    const stuck: string[] = [];
    for (const [wallet, final] of finals.entries()) {
      if (final === null) continue;
      const next = await provider.getTransactionCount(setup.wallets[wallet].address);
      const waitedFor = sent
        .filter((tx) => tx.wallet === wallet && tx.nonce >= next && tx.nonce < next + 5)
        .map(
          (tx) => `nonce ${tx.nonce} sent at ${clock(tx.sentAt).trim()}: ${tx.mode} answered ${tx.answer}`,
        );
      stuck.push(
        `${final} [the chain's next nonce ${next}; sent from it: ${some(waitedFor, 5) || 'nothing'}]`,
      );
    }
    return stuck;
  } finally {
    provider.destroy();
  }
}

/** The checks on what the users saw during the run. */
function examineRequests(faults: Fault[]): Check[] {
  // The fault under way when the request ended (was answered, or cut): the one that answer is due to.
  const windowOf = (record: RequestRecord) =>
    faults.find((fault) => fault.at <= record.end && record.end <= (fault.recoveredAt ?? Infinity));
  const describe = (record: RequestRecord) => {
    const fault = windowOf(record);
    return (
      `${record.endpoint} sent at ${clock(record.start).trim()}, ${record.status ?? record.failure} after ` +
      `${seconds(record.end - record.start)}${fault ? ` (in the ${fault.kind})` : ''}`
    );
  };
  const errors = requests.filter((record) => record.status === 500);
  // A kill cannot answer what it cuts; anything else must answer (or refuse the connection).
  const cuts = requests.filter(
    (record) =>
      record.failure !== undefined &&
      record.failure !== 'refused' &&
      windowOf(record)?.kind !== 'node SIGKILL',
  );
  const unrecovered = faults.filter((fault) => fault.failure);
  return [
    {
      name: 'no request answered 500',
      ok: errors.length === 0,
      detail: errors.length
        ? `${errors.length}: ${some(errors.map(describe))}`
        : `${requests.length} requests`,
    },
    {
      name: 'no request cut without an answer (but by a node SIGKILL)',
      ok: cuts.length === 0,
      detail: cuts.length ? `${cuts.length}: ${some(cuts.map(describe))}` : 'none',
    },
    {
      name: 'every fault was recovered from',
      ok: unrecovered.length === 0,
      detail: unrecovered.length
        ? some(unrecovered.map((fault) => `${fault.kind}: ${fault.failure}`))
        : `${faults.length} faults`,
    },
  ];
}

// --- The run ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-chaos-'));
  chmodSync(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must reach the folder
  const log = createWriteStream(path.join(folder, 'laurel.log'));
  const service = new Service(path.join(folder, 'data'), await freePort(), log);
  // One connection per user, and a few for the settling reads and final sends.
  const client = new JsonClient(USERS + WALLETS + 2, REQUEST_TIMEOUT_MS);
  // Bounded: three starts (the first, after the kill, after the deploy), the load and what each
  // fault may add to it at most, the users' last requests, the final sends and the settling.
  const budgetMs =
    3 * START_TIMEOUT_MS +
    SECONDS * 1000 +
    DEPLOY_STOP_MS +
    POSTGRES_BACK_MS +
    MAX_PAUSE_MS +
    LOAD_AFTER_FAULTS_MS +
    REQUEST_TIMEOUT_MS +
    FINAL_SEND_MS +
    SETTLE_SECONDS * 1000 +
    60_000;
  const overrun = setTimeout(() => {
    console.error(
      `chaos: still running after ${seconds(budgetMs)}: giving up; Laurel's output in ${log.path}`,
    );
    void service.stop().finally(() => process.exit(1));
  }, budgetMs).unref();
  const interrupted = () => void service.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  console.log(
    `chaos: ${SECONDS} s of load, seed ${SEED}, ${USERS} users over ${WALLETS} wallets; ` +
      `data and Laurel's output in ${folder}`,
  );
  let setup: Setup | undefined;
  let passed = false;
  try {
    const first = await service.start();
    say(`Laurel ready (pid ${first.pid}) at ${service.url}, anvil ${first.rpcUrl}`);
    setup = await setUp(service, client);
    say(`app ${setup.appId}, ${WALLETS} wallets signed in, ${WALLETS} webhooks verified`);
    const { rewarded } = setup;

    // The faults' moments: one of each kind, in a drawn order, within the load's 10 %–80 %.
    const kinds = [...FAULT_KINDS];
    for (let i = kinds.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
    }
    const moments = kinds.map(() => (0.1 + random() * 0.7) * SECONDS * 1000).sort((a, b) => a - b);
    const loadStart = Date.now();
    say(
      `load started; faults planned at ${kinds.map((kind, i) => `${kind} +${seconds(moments[i])}`).join(', ')}`,
    );

    let loading = true;
    const choices = Array.from({ length: USERS }, () => seededRandom(Math.floor(random() * 2 ** 31)));
    const users = Array.from({ length: USERS }, async (_, u) => {
      const choose = choices[u];
      while (loading) {
        const user = rewarded[Math.floor(choose() * rewarded.length)];
        const mode = choose() < 0.5 ? 'execute' : 'execute-and-wait';
        const { ok } = await rewardOnce(setup!, u % WALLETS, user, mode);
        // A failed flow is retried after a moment (a client's backoff), with a new build.
        if (!ok) await sleep(250);
      }
    });
    const faults: Fault[] = [];
    for (const [i, kind] of kinds.entries()) {
      await sleep(Math.max(0, loadStart + moments[i] - Date.now()));
      faults.push(await injectFault(kind, setup));
    }
    const loadEnd = Math.max(loadStart + SECONDS * 1000, Date.now() + LOAD_AFTER_FAULTS_MS);
    await sleep(Math.max(0, loadEnd - Date.now()));
    loading = false;
    await Promise.all(users);
    say(`load stopped: ${sent.length} transactions signed, ${requests.length} requests`);

    // Every wallet sends once more; a wallet left stuck by a fault cannot.
    const finalsFrom = Date.now();
    const finals = await Promise.all(
      setup.wallets.map(async (_, wallet) => {
        const deadline = Date.now() + FINAL_SEND_MS;
        let last = '';
        while (Date.now() < deadline) {
          const result = await rewardOnce(setup!, wallet, rewarded[wallet], 'execute-and-wait');
          if (result.ok) return null;
          last = result.answer;
          await sleep(500);
        }
        return `wallet ${wallet}: ${last}`;
      }),
    );
    const stuck = await explainStuck(setup, finals);
    say(`final sends done in ${seconds(Date.now() - finalsFrom)}; settling (at most ${SETTLE_SECONDS} s)`);

    const settleDeadline = Date.now() + SETTLE_SECONDS * 1000;
    // A round Laurel did not answer is a failed round: the next one may be answered.
    const examine = () =>
      examineSettled(setup!).catch((error: unknown) => ({
        mined: 0,
        checks: [{ name: 'Laurel answers the settling reads', ok: false, detail: failureOf(error) }],
      }));
    const settling = Date.now();
    let settled = await examine();
    const notYet = settled.checks.filter((check) => !check.ok);
    // What settling waits for: a run that passes after a long settle says why it took so long.
    for (const check of notYet) say(`  not yet: ${check.name} (${check.detail})`);
    while (settled.checks.some((check) => !check.ok) && Date.now() < settleDeadline) {
      await sleep(1000);
      settled = await examine();
    }
    say(
      settled.checks.every((check) => check.ok)
        ? `settled in ${seconds(Date.now() - settling)}`
        : `not settled after ${seconds(Date.now() - settling)}`,
    );
    const checks: Check[] = [
      ...examineRequests(faults),
      ...settled.checks,
      {
        name: 'every wallet can still send (build → sign → execute-and-wait)',
        ok: stuck.length === 0,
        detail: stuck.length ? some(stuck) : `${WALLETS} wallets`,
      },
    ];
    const events = setup.receiver.events;
    const badSignatures = events.filter((event) => !event.laurelSignature || !event.standardSignature);
    checks.push({
      name: 'every webhook signature verified',
      ok: badSignatures.length === 0,
      detail: badSignatures.length
        ? `${badSignatures.length} of ${events.length} did not`
        : `${events.length}`,
    });

    printReport(faults, settled.mined, setup, checks);
    passed = checks.every((check) => check.ok);
  } finally {
    clearTimeout(overrun);
    setup?.receiver.stop();
    client.destroy();
    await service.stop();
    log.end();
    if (passed && !args.keep) rmSync(folder, { recursive: true, force: true });
    else console.log(`\ndata folder and Laurel's output kept in ${folder}`);
  }
  if (!passed) process.exit(1);
}

function printReport(faults: Fault[], mined: number, setup: Setup, checks: Check[]): void {
  console.log('\nfaults:');
  for (const fault of faults) {
    console.log(
      `  ${clock(fault.at)}  ${new Date(fault.at).toISOString()}  ${fault.kind.padEnd(18)} ` +
        (fault.failure ? `NOT RECOVERED: ${fault.failure}` : fault.detail),
    );
  }
  const accepted = sent.filter((tx) => tx.answer.startsWith('200'));
  const byHash = new Map<string, number>();
  const byKey = new Map<string, number>();
  for (const event of setup.receiver.events) {
    byHash.set(event.hash, (byHash.get(event.hash) ?? 0) + 1);
    byKey.set(event.idempotencyKey, (byKey.get(event.idempotencyKey) ?? 0) + 1);
  }
  const inFault = (record: RequestRecord) =>
    faults.some((fault) => record.start <= (fault.recoveredAt ?? Infinity) && record.end >= fault.at);
  const unavailable = requests.filter((record) => record.status === 503);
  const longest = requests.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a), requests[0]);
  const statuses = new Map<string, number>();
  for (const record of requests) {
    const key = `${record.endpoint} ${record.status ?? record.failure}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  console.log('\nfound:');
  console.log(
    `  transactions: ${sent.length} signed, ${accepted.length} answered 200, ${mined} mined on the chain`,
  );
  console.log(`  faults: ${faults.length} (${faults.filter((fault) => fault.failure).length} not recovered)`);
  console.log(
    `  deliveries: ${setup.receiver.events.length} transaction events for ${byHash.size} transactions; ` +
      `duplicates: ${[...byHash.values()].filter((n) => n > 1).length} transactions delivered more than once, ` +
      `${[...byKey.values()].filter((n) => n > 1).length} idempotency keys received more than once`,
  );
  console.log(
    `  503s: ${unavailable.length} (${unavailable.filter((record) => !inFault(record)).length} outside a fault's window, ` +
      'from its start to its recovery)',
  );
  if (longest)
    console.log(
      `  longest request: ${longest.endpoint} at ${clock(longest.start)}, ${seconds(longest.end - longest.start)} ` +
        `(${longest.status ?? longest.failure})`,
    );
  console.log('  answers by endpoint:');
  for (const [key, count] of [...statuses].sort()) {
    const sample = samples.get(key);
    console.log(`    ${String(count).padStart(6)}  ${key}${sample ? `  e.g. ${sample}` : ''}`);
  }
  console.log('\nchecks:');
  for (const check of checks) console.log(`  ${check.ok ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
}

main().catch((error: unknown) => {
  console.error('chaos:', error);
  process.exit(1);
});
