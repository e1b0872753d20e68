import { Transaction, Wallet } from 'ethers';
import { createLogger } from '../../src/logger';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, startTestChain, type TestChain } from '../helpers/chain';
import { client, createApp, type Client, type Unsigned } from '../helpers/flow';
import { PERFECT, startHostileRpc, type HostileRpc } from '../helpers/hostile-rpc';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Laurel on a chain served by two providers, two hostile JSON-RPC proxies in front of one anvil,
 * one of which dies, hangs, throttles or lags in the middle of a run of builds, broadcasts
 * (execute and execute-and-wait), receipts, webhooks and reads: every request is answered 200 (no
 * 5xx caused by the bad provider), every `transaction` event arrives, and the indexer (alone: the
 * rewards sent with execute are not ingested from their receipts) shows every reward.
 */
let chain: TestChain;
let providers: [HostileRpc, HostileRpc];
let laurel: TestLaurel;
let receiver: WebhookReceiver;
let owner: Wallet;
let api: Client;
let appId: string;
const logLines: string[] = [];
const HOOK = '/providers-hook';

beforeAll(async () => {
  chain = await startTestChain();
  providers = [await startHostileRpc(chain.rpcUrl), await startHostileRpc(chain.rpcUrl)];
  receiver = await startWebhookReceiver();
  laurel = await startTestLaurel({
    env: {
      CHAINS: JSON.stringify([
        {
          ...chainConfigOf(chain),
          rpcUrl: undefined,
          rpcUrls: providers.map((provider) => provider.url),
          maxProviderLagBlocks: 2,
        },
      ]),
      INDEXER_POLL_INTERVAL_MS: '100',
      RPC_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'info',
    },
    log: createLogger('info', { destination: { write: (line: string) => logLines.push(line) } }),
  });
  owner = chain.wallets[1];
  api = client(laurel.url, await issueApiKey(laurel.url, owner), owner);
  appId = await createApp(api, 'Providers');
  receiver.route(HOOK, answerChallenge());
  const webhook = await api.post('/webhook', { url: receiver.url(HOOK), events: ['transaction'] });
  expect(webhook.status).toBe(201);
  expect((await api.post(`/webhook/${(webhook.body.webhook as { id: number }).id}/test`, {})).status).toBe(
    200,
  );
}, 120_000);

afterEach(async () => {
  await Promise.all(providers.map((provider) => provider.set(PERFECT)));
  await waitUntil('both providers healthy again', async () => {
    const ready = await readiness();
    return ready.providers.every((provider) => provider.ok);
  });
});

afterAll(async () => {
  await laurel?.stop();
  await Promise.all([...(providers ?? []).map((provider) => provider.close()), receiver?.stop()]);
  await chain?.stop();
});

async function readiness() {
  const response = await fetch(`${laurel.url}/ready`);
  const body = (await response.json()) as {
    checks: {
      chains: { name: string; ok: boolean; providers: { name: string; ok: boolean; state: string }[] }[];
    };
  };
  return { status: response.status, providers: body.checks.chains[0].providers, body };
}

/**
 * Rewards `count` new users through Laurel, one after the other: build, then execute-and-wait and
 * execute in turn, then a profile read. `fault` is applied after the first `faultAfter` rewards.
 * Returns every answer that was not 200 (path, status, body), the transactions' hashes and the users.
 */
async function rewardRun(count: number, faultAfter: number, fault: () => Promise<unknown>) {
  const refused: { path: string; status: number; body: unknown }[] = [];
  const note = (path: string, answer: { status: number; body: unknown }) => {
    if (answer.status !== 200) refused.push({ path, status: answer.status, body: answer.body });
  };
  const hashes: string[] = [];
  const users: string[] = [];
  for (let i = 0; i < count; i += 1) {
    if (i === faultAfter) await fault();
    const user = Wallet.createRandom().address;
    users.push(user);
    const built = await api.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: `run-${i}`,
      receiver: user,
      amount: 2,
    });
    note('/reward/XP', built);
    if (built.status !== 200) continue;
    const signed = await owner.signTransaction(built.body.unsignedTransaction as Unsigned);
    hashes.push(Transaction.from(signed).hash!);
    const path = i % 2 ? '/transactions/execute' : '/transactions/execute-and-wait';
    note(path, await api.post(path, { chain: 'local', signed_transaction: signed }));
    note('/profile', await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`));
  }
  return { refused, hashes, users };
}

/** Every user's reward shows in their profile (through the indexer) and every transaction's event arrived. */
async function expectAllSeen(run: { hashes: string[]; users: string[] }) {
  await waitUntil(
    'every reward indexed',
    async () => {
      for (const user of run.users) {
        const profile = await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
        if (profile.status !== 200 || profile.body.xp_balance !== '2') return undefined;
      }
      return true;
    },
    45_000,
  );
  await waitUntil(
    'every transaction event delivered',
    () => {
      const delivered = new Set(
        receiver.calls
          .filter((call) => call.path === HOOK)
          .map((call) => (JSON.parse(call.body) as { payload: { hash?: string } | null }).payload?.hash),
      );
      return run.hashes.every((hash) => delivered.has(hash));
    },
    45_000,
  );
}

const logged = () => logLines.join('');

it('keeps answering when a provider dies (connection refused) mid-run, and says which one', async () => {
  const [, second] = providers;
  const run = await rewardRun(6, 2, () => second.set({ dark: 'refuse' }));
  expect(run.refused).toEqual([]);
  await expectAllSeen(run);
  const ready = await readiness();
  expect(ready.status).toBe(200);
  expect(ready.providers).toEqual([
    { name: 'local#1', ok: true, state: 'ok' },
    { name: 'local#2', ok: false, state: 'down' },
  ]);
  // A provider that dies resets the connections it had open; a request that arrives later is refused.
  expect(logged()).toMatch(
    /"provider":"local#2".*"reason":"(refused|reset) the connection".*"msg":"rpc provider failing"/,
  );
  for (const provider of providers) expect(logged()).not.toContain(provider.url.replace('http://', ''));
}, 120_000);

it('keeps answering when a provider takes calls and never answers mid-run', async () => {
  const [, second] = providers;
  let callsWhenHung = 0;
  const run = await rewardRun(6, 2, async () => {
    await second.set({ dark: 'hang' });
    callsWhenHung = second.calls();
  });
  expect(run.refused).toEqual([]);
  await expectAllSeen(run);
  // It was asked (and hedged around), not merely skipped.
  expect(second.calls()).toBeGreaterThan(callsWhenHung);
}, 120_000);

it('keeps answering when a provider throttles mid-run (429 with Retry-After, -32005), leaving it alone meanwhile', async () => {
  const [first] = providers;
  const run = await rewardRun(8, 2, () =>
    first.set({ throttleShare: 0.5, retryAfterSeconds: 2, limitErrorShare: 0.5 }),
  );
  expect(run.refused).toEqual([]);
  await expectAllSeen(run);
  expect(logged()).toMatch(/"provider":"local#1".*"msg":"rpc provider throttling"/);
  // Counted per provider (its place in rpcUrls), never by URL.
  const metrics = await (await fetch(`${laurel.url}/metrics`)).text();
  expect(metrics).toMatch(/^laurel_rpc_throttled_total\{chain="local",provider="1"\} [1-9]/m);
  expect(metrics).toMatch(
    /^laurel_rpc_requests_total\{chain="local",provider="2",method="eth_sendRawTransaction",outcome="ok"\} [1-9]/m,
  );
  for (const provider of providers) expect(metrics).not.toContain(provider.url.replace('http://', ''));
}, 120_000);

it('keeps the head, receipts and nonces off a provider that lags mid-run; the indexer misses nothing', async () => {
  const [, second] = providers;
  const run = await rewardRun(6, 2, async () => {
    await second.set({ lagBlocks: 4 });
    // Noticed within a second of traffic; /ready asks every provider at once.
    await waitUntil('the lag noticed', async () => (await readiness()).providers[1].state === 'lagging');
  });
  expect(run.refused).toEqual([]);
  await expectAllSeen(run);
  expect((await readiness()).status).toBe(200);
  expect(logged()).toMatch(/"provider":"local#2".*"msg":"rpc provider lagging"/);
}, 120_000);

it('keeps answering through a share of 5xx, resets and latency on both providers', async () => {
  const [first, second] = providers;
  const run = await rewardRun(6, 0, () =>
    Promise.all([
      first.set({ serverErrorShare: 0.2, resetShare: 0.1, latencyMs: 20 }),
      second.set({ serverErrorShare: 0.3, latencyMs: 40 }),
    ]),
  );
  expect(run.refused).toEqual([]);
  await expectAllSeen(run);
}, 120_000);
