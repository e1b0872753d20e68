import { Contract, Wallet, type ContractTransactionResponse, type TransactionRequest } from 'ethers';
import { appFactoryInterface, appInterface, encodeActionId } from '../../src/chain/contracts';
import { issueApiKey } from '../helpers/auth';
import { mined, startTestChain, type TestChain } from '../helpers/chain';
import { eventArg, type Unsigned } from '../helpers/flow';
import { loggerInto } from '../helpers/logs';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { waitUntil } from '../helpers/wait';

/**
 * Reorganisations made on anvil (anvil_reorg replaces the last blocks, optionally with given
 * transactions) under a Laurel that follows the chain with its read caches warm. After each one,
 * the answers must be corrected within two poll intervals, and then equal, answer for answer,
 * those of a fresh Laurel indexing the canonical chain from scratch into a new database.
 */
const POLL_MS = 1000;
const FINALITY_DEPTH = 8;
const DAY = 86_400;
const HOUR = 3_600;
/** 2031-03-01T00:00:00Z, the first day of rewards (block times are set with evm_setNextBlockTimestamp). */
const D0 = Date.UTC(2031, 2, 1) / 1000;
const at = (day: number, hour: number) => D0 + day * DAY + hour * HOUR;
const XP = 10n ** 18n;

let chain: TestChain;
let laurel: TestLaurel;
let receiver: WebhookReceiver;
const logLines: string[] = [];
let owner: Wallet;
let operators: Wallet[];
let ownerKey: string;
let app: Contract;
let appId: string;
let badge: string;
let credit: string;
/** Everyone rewarded, whose profiles are compared. */
const users = Array.from({ length: 8 }, () => Wallet.createRandom().address);
const [alice, bob, carol, dave, erin, frank, gina, hank] = users;
/** Tokens created during the tests, whose leaderboards are compared too. */
const forkTokens: string[] = [];
/** Milliseconds from each reorganisation to the corrected answer, for the summary. */
const latencies: Record<string, number> = {};

const actionId = encodeActionId('quest');
const send = (method: string, params: unknown[]) => chain.provider.send(method, params);

/** The next block's time: `time`, or just after the latest block when that is later. */
async function nextBlockAt(time: number): Promise<void> {
  const latest = await chain.provider.getBlock('latest');
  await send('evm_setNextBlockTimestamp', [Math.max(time, latest!.timestamp + 1)]);
}

/** Signs and sends a call of `wallet`, returning the signed bytes (anvil_reorg can include them again). */
async function signedCall(wallet: Wallet, request: TransactionRequest, time?: number) {
  const populated = await wallet.populateTransaction(request);
  const signed = await wallet.signTransaction(populated);
  if (time !== undefined) await nextBlockAt(time);
  const response = await chain.provider.broadcastTransaction(signed);
  const receipt = await response.wait();
  if (receipt?.status !== 1) throw new Error('transaction failed');
  return { signed, receipt };
}

const rewardXP = (operator: Wallet, user: string, amount: bigint, time?: number) =>
  signedCall(
    operator,
    { to: appId, data: appInterface.encodeFunctionData('rewardXP', [user, amount, actionId]) },
    time,
  );

/** anvil replaces the last `depth` blocks with as many new ones, holding `included` ([signed tx, block offset]). */
const reorg = (depth: number, included: [string, number][] = []) => send('anvil_reorg', [depth, included]);

const indexerOf = (of: TestLaurel) => of.services.indexer.status()[0];

async function indexedToHead(of: TestLaurel): Promise<void> {
  const head = await chain.provider.getBlockNumber();
  await waitUntil(`the index to reach block ${head}`, () => indexerOf(of).cursor >= head, 60_000);
}

/** Leaderboard windows: whole cached days, partial days at both ends, one day, inside a day, more than 31 days. */
const windows = [
  '',
  `&start=${at(0, 0)}&end=${at(3, 0) - 1}`,
  `&start=${at(0, 11)}&end=${at(2, 11)}`,
  `&start=${at(1, 0)}&end=${at(2, 0) - 1}`,
  `&start=${at(2, 1)}&end=${at(2, 23)}`,
  `&start=${at(-40, 0)}&end=${at(3, 0)}`,
];

/** Every answer compared: profiles, leaderboards of every window, badges with holders, token listings, apps. */
async function answers(of: TestLaurel, apiKey: string): Promise<Record<string, unknown>> {
  const paths = [
    ...users.flatMap((user) => [
      `/profile?chain=local&user_id=${user}`,
      `/profile?chain=local&user_id=${user}&app_id=${appId}`,
    ]),
    ...windows.flatMap((window) => [
      `/leaderboard?chain=local${window}`,
      `/leaderboard?chain=local&app_id=${appId}${window}`,
      `/leaderboard?chain=local&app_id=${appId}&token_address=${credit}${window}`,
      `/leaderboard?chain=local&app_id=${appId}&token_address=${badge}${window}`,
    ]),
    ...forkTokens.map((token) => `/leaderboard?chain=local&app_id=${appId}&token_address=${token}`),
    `/badges?chain=local&app_id=${appId}`,
    `/credit/tokens?chain=local&app_id=${appId}`,
    '/apps?chain=local',
  ];
  const answered: Record<string, unknown> = {};
  for (const path of paths) {
    const { status, body } = await request(of.url, 'GET', `/v1${path}`, { apiKey });
    answered[path] = { status, body };
  }
  return answered;
}

/** Reads every answer twice, so that the read caches hold them (they keep an answer from its second read). */
async function warmCaches(): Promise<void> {
  await answers(laurel, ownerKey);
  await answers(laurel, ownerKey);
}

/** What a fresh Laurel answers once it indexed the chain as it is now, into a new database. */
async function freshAnswers(): Promise<Record<string, unknown>> {
  const fresh = await startTestLaurel({
    chain,
    chainEntry: { finalityDepth: FINALITY_DEPTH },
    env: { LAUREL_ROLES: 'api,indexer', INDEXER_POLL_INTERVAL_MS: '50' },
    worker: false,
  });
  try {
    await indexedToHead(fresh);
    return await answers(fresh, await issueApiKey(fresh.url, owner));
  } finally {
    await fresh.stop();
  }
}

/**
 * After a reorganisation made at `since`: `corrected` holds within two poll intervals (measured),
 * and then every answer equals a fresh index's.
 */
async function expectCorrected(
  scenario: string,
  since: number,
  corrected: () => Promise<boolean>,
): Promise<void> {
  await waitUntil(`${scenario}: the corrected answer`, corrected, 2 * POLL_MS);
  latencies[scenario] = Date.now() - since;
  await expectSameAsFreshIndex();
}

/** Every answer equals a fresh index's of the chain as it is now. */
async function expectSameAsFreshIndex(): Promise<void> {
  await indexedToHead(laurel);
  const expected = await freshAnswers();
  expect(await answers(laurel, ownerKey)).toEqual(expected);
}

/** The user's XP as Laurel's profile shows it (whole XP here). */
const xpOf = async (user: string) => {
  const { body } = await request<{ xp_balance: string }>(
    laurel.url,
    'GET',
    `/v1/profile?chain=local&user_id=${user}`,
    {
      apiKey: ownerKey,
    },
  );
  return body.xp_balance;
};

beforeAll(async () => {
  chain = await startTestChain();
  receiver = await startWebhookReceiver();
  laurel = await startTestLaurel({
    chain,
    chainEntry: { finalityDepth: FINALITY_DEPTH },
    env: {
      INDEXER_POLL_INTERVAL_MS: String(POLL_MS),
      TRANSACTION_DROP_AFTER_SECONDS: '2',
      // Every comparison reads ~90 answers, some many times over.
      RATE_LIMIT_MAX_REQUESTS: '1000000',
    },
    log: loggerInto('warn', logLines),
  });
  [, owner, ...operators] = chain.wallets;
  ownerKey = await issueApiKey(laurel.url, owner);

  const factory = new Contract(chain.factory, appFactoryInterface, owner);
  const created = await mined(factory.createApp('Reorgs') as Promise<ContractTransactionResponse>);
  appId = eventArg(created.logs, appFactoryInterface, 'AppCreated', 'app');
  app = new Contract(appId, appInterface, owner);
  for (const operator of operators.slice(0, 4)) {
    await mined(app.addOperator(operator.address) as Promise<ContractTransactionResponse>);
  }
  const badgeCreated = await mined(
    app.createBadge('Gold', 'ipfs://gold/') as Promise<ContractTransactionResponse>,
  );
  badge = eventArg(badgeCreated.logs, appInterface, 'BadgeCreated', 'badge');
  const creditCreated = await mined(
    app.createCreditToken('Credit', 'CRD', 6, 1_000_000n, false) as Promise<ContractTransactionResponse>,
  );
  credit = eventArg(creditCreated.logs, appInterface, 'CreditTokenCreated', 'token');

  // Three days of rewards, before any reorganisation.
  const [op1, op2] = operators;
  await rewardXP(op1, alice, 5n * XP, at(0, 10));
  await rewardXP(op2, bob, 3n * XP, at(0, 12));
  await rewardXP(op1, carol, 4n * XP, at(1, 10));
  await rewardXP(op2, alice, 2n * XP, at(1, 14));
  await rewardXP(op1, bob, 6n * XP, at(2, 8));
  await mined(app.rewardBadge(badge, carol, 1n, '', actionId) as Promise<ContractTransactionResponse>);
  await mined(app.rewardCredit(credit, dave, 7n, actionId) as Promise<ContractTransactionResponse>);

  // The owner's webhook receives every transaction event (execute-and-wait's receipts).
  receiver.route('/transactions', answerChallenge());
  const webhook = await request<{ webhook: { id: number } }>(laurel.url, 'POST', '/v1/webhook', {
    apiKey: ownerKey,
    body: { url: receiver.url('/transactions'), events: ['transaction'] },
  });
  expect(webhook.status).toBe(201);
  const verified = await request(laurel.url, 'POST', `/v1/webhook/${webhook.body.webhook.id}/test`, {
    apiKey: ownerKey,
  });
  expect(verified.status).toBe(200);
  await indexedToHead(laurel);
}, 120_000);

afterAll(async () => {
  if (Object.keys(latencies).length > 0) {
    console.log(
      `reorganisation → corrected answer (poll interval ${POLL_MS} ms):\n` +
        Object.entries(latencies)
          .map(([scenario, ms]) => `  ${ms} ms  ${scenario}`)
          .join('\n'),
    );
  }
  await laurel?.stop();
  await receiver?.stop();
  await chain?.stop();
});

it('starts equal to a fresh index', async () => {
  await warmCaches();
  expect(await answers(laurel, ownerKey)).toEqual(await freshAnswers());
});

it('a reward disappears with its block (depth 1)', async () => {
  await rewardXP(operators[0], erin, 9n * XP, at(2, 9));
  await indexedToHead(laurel);
  expect(await xpOf(erin)).toBe('9');
  await warmCaches();
  const since = Date.now();
  await reorg(1);
  await expectCorrected('depth 1: a reward disappears', since, async () => (await xpOf(erin)) === '0');
});

it('rewards move to other blocks, one disappears (depth 3, inside the window)', async () => {
  const [op1, op2, op3] = operators;
  const first = await rewardXP(op1, frank, 1n * XP, at(2, 10));
  const second = await rewardXP(op2, gina, 2n * XP, at(2, 11));
  await rewardXP(op3, frank, 4n * XP, at(2, 12));
  await indexedToHead(laurel);
  expect(await xpOf(frank)).toBe('5');
  await warmCaches();
  const since = Date.now();
  // The second reward goes first, the first last; the third is not included again.
  await reorg(3, [
    [second.signed, 0],
    [first.signed, 2],
  ]);
  await expectCorrected(
    'depth 3: rewards move, one disappears',
    since,
    async () => (await xpOf(frank)) === '1',
  );
  const moved = await chain.provider.getTransactionReceipt(first.receipt.hash);
  expect(moved!.blockNumber).toBe(first.receipt.blockNumber + 2);
});

it('a badge minted and then reorganised away: holders and profiles follow', async () => {
  const badges = async () =>
    (
      await request<{ badges: { id: string; holders: number }[] }>(
        laurel.url,
        'GET',
        `/v1/badges?chain=local&app_id=${appId}`,
        {
          apiKey: ownerKey,
        },
      )
    ).body;
  await mined(app.rewardBadge(badge, hank, 2n, '', actionId) as Promise<ContractTransactionResponse>);
  await indexedToHead(laurel);
  expect(JSON.stringify(await badges())).toContain('"holders":2');
  await warmCaches();
  const since = Date.now();
  await reorg(1);
  await expectCorrected('depth 1: a badge minted away', since, async () =>
    JSON.stringify(await badges()).includes('"holders":1'),
  );
});

it('a credit token created on a fork leaves the listings; one created again at its address is listed as it is', async () => {
  const tokens = async () =>
    JSON.stringify(
      (
        await request(laurel.url, 'GET', `/v1/credit/tokens?chain=local&app_id=${appId}`, {
          apiKey: ownerKey,
        })
      ).body,
    );
  const created = await mined(
    app.createCreditToken('Fork', 'FRK', 2, 500n, false) as Promise<ContractTransactionResponse>,
  );
  const fork = eventArg(created.logs, appInterface, 'CreditTokenCreated', 'token');
  forkTokens.push(fork);
  await mined(app.rewardCredit(fork, alice, 5n, actionId) as Promise<ContractTransactionResponse>);
  await indexedToHead(laurel);
  expect(await tokens()).toContain('Fork');
  await warmCaches();
  const since = Date.now();
  await reorg(2);
  await expectCorrected(
    'depth 2: a credit token created on a fork',
    since,
    async () => !(await tokens()).includes('Fork'),
  );

  // The token deployer's nonce went back with the fork: the next token gets the same address.
  const again = await mined(
    app.createCreditToken('Canonical', 'CAN', 0, 9n, true) as Promise<ContractTransactionResponse>,
  );
  expect(eventArg(again.logs, appInterface, 'CreditTokenCreated', 'token')).toBe(fork);
  await mined(app.rewardPoint(fork, bob, 3n, actionId) as Promise<ContractTransactionResponse>);
  await indexedToHead(laurel);
  expect(await tokens()).toContain('Canonical');
  await expectSameAsFreshIndex();
});

/**
 * A reward of `amount` XP to a new user, built with Laurel, signed by the owner and sent through
 * execute-and-wait: in the index at once (read-your-writes), and its transaction event received.
 */
async function executeAndWaitReward(amount: number) {
  const user = Wallet.createRandom().address;
  users.push(user);
  const built = await request<{ unsignedTransaction: Unsigned }>(laurel.url, 'POST', '/v1/reward/XP', {
    apiKey: ownerKey,
    body: { chain: 'local', app_id: appId, receiver: user, amount, action_id: 'quest' },
  });
  expect(built.status).toBe(200);
  const signed = await owner.signTransaction(built.body.unsignedTransaction);
  const executed = await request<{
    status: string;
    receipt: { hash: string; blockHash: string; blockNumber: number };
  }>(laurel.url, 'POST', '/v1/transactions/execute-and-wait', {
    apiKey: ownerKey,
    body: { chain: 'local', signed_transaction: signed },
  });
  expect(executed.body.status).toBe('success');
  const { receipt } = executed.body;
  expect(await xpOf(user)).toBe(String(amount));
  await waitUntil('the transaction event', () => transactionEvents(receipt.hash).length === 1);
  return { user, signed, nonce: built.body.unsignedTransaction.nonce as number, receipt };
}

const transactionRow = (hash: string) =>
  laurel.services.prisma.transaction.findFirstOrThrow({
    where: { hash },
    select: { status: true, blockHash: true },
  });

/** The `transaction` events the owner's webhook received for transaction `hash`. */
const transactionEvents = (hash: string) =>
  receiver.calls
    .filter((call) => call.path === '/transactions')
    .map(
      (call) =>
        JSON.parse(call.body) as {
          event: string;
          idempotency_key: string;
          payload: { hash?: string; blockHash?: string };
        },
    )
    .filter((body) => body.event === 'transaction' && body.payload?.hash === hash);

it('a receipt execute-and-wait ingested moves to another block: pending again, then mined there, with a second event', async () => {
  const { signed, receipt } = await executeAndWaitReward(3);
  await send('evm_mine', []);
  await indexedToHead(laurel);
  await warmCaches();
  await reorg(2, [[signed, 1]]);
  const moved = await chain.provider.getTransactionReceipt(receipt.hash);
  expect(moved!.blockNumber).toBe(receipt.blockNumber + 1);

  await waitUntil(
    'the transaction recorded in its new block',
    async () => (await transactionRow(receipt.hash)).blockHash === moved!.blockHash,
    20_000,
  );
  expect(await transactionRow(receipt.hash)).toEqual({ status: 'success', blockHash: moved!.blockHash });
  const events = await waitUntil('a second transaction event', () => {
    const received = transactionEvents(receipt.hash);
    return received.length === 2 && received;
  });
  expect(events[0].payload.blockHash).toBe(receipt.blockHash);
  expect(events[1].payload.blockHash).toBe(moved!.blockHash);
  expect(events[1].idempotency_key).not.toBe(events[0].idempotency_key);
  await expectSameAsFreshIndex();
});

it('a receipt execute-and-wait ingested is reorganised away and not included again: Laurel sends it again, it is mined there (a second event), and the wallet goes on', async () => {
  const { user, nonce, receipt } = await executeAndWaitReward(4);
  await indexedToHead(laurel);
  await warmCaches();
  const since = Date.now();
  await reorg(1);
  expect(await chain.provider.getTransaction(receipt.hash)).toBeNull();

  // Laurel held the signed bytes: it sent them again, and anvil mined them in a new block.
  const again = await waitUntil(
    'the transaction sent again and mined',
    async () => (await chain.provider.getTransactionReceipt(receipt.hash)) ?? undefined,
    20_000,
  );
  latencies['depth 1: a receipt reorganised away, sent again by Laurel and mined'] = Date.now() - since;
  expect(again.blockHash).not.toBe(receipt.blockHash);
  await waitUntil(
    'the transaction recorded in its new block',
    async () => (await transactionRow(receipt.hash)).blockHash === again.blockHash,
    20_000,
  );
  expect(await transactionRow(receipt.hash)).toEqual({ status: 'success', blockHash: again.blockHash });
  const events = await waitUntil('a second transaction event', () => {
    const received = transactionEvents(receipt.hash);
    return received.length === 2 && received;
  });
  expect(events[0].payload.blockHash).toBe(receipt.blockHash);
  expect(events[1].payload.blockHash).toBe(again.blockHash);
  expect(events[1].idempotency_key).not.toBe(events[0].idempotency_key);
  // The status read says Laurel sent it again.
  const status = await request(laurel.url, 'GET', `/v1/transactions/${receipt.hash}`, { apiKey: ownerKey });
  expect(status.body).toMatchObject({
    status: 'success',
    nonce,
    blockNumber: again.blockNumber,
    rebroadcasts: 1,
    rebroadcast_at: expect.any(String),
  });
  await waitUntil('the reward in the index again', async () => (await xpOf(user)) === '4', 2 * POLL_MS);

  // The wallet is not stuck behind the lost nonce: its next transaction goes through.
  const next = await executeAndWaitReward(1);
  expect(next.nonce).toBe(nonce + 1);
  await expectSameAsFreshIndex();
});

it('a transaction reorganised away whose nonce another transaction of the wallet took is dropped with the node’s reason, and the wallet goes on', async () => {
  const { nonce, receipt } = await executeAndWaitReward(2);
  await indexedToHead(laurel);
  // The new block holds another transaction of the owner with the same nonce.
  const other = await owner.signTransaction(
    await owner.populateTransaction({ to: owner.address, value: 1n, nonce }),
  );
  await reorg(1, [[other, 0]]);

  await waitUntil(
    'the transaction dropped',
    async () => (await transactionRow(receipt.hash)).status === 'dropped',
    20_000,
  );
  const status = await request<{ error: string }>(laurel.url, 'GET', `/v1/transactions/${receipt.hash}`, {
    apiKey: ownerKey,
  });
  expect(status.body).toMatchObject({ status: 'dropped', nonce, rebroadcasts: 0 });
  expect(status.body.error).toMatch(
    /^Dropped: the node refused it when Laurel sent it again \(nonce_too_low\): .*nonce too low/i,
  );
  // No event for a receipt that went away: the receiver's first one stays the only one.
  expect(transactionEvents(receipt.hash)).toHaveLength(1);
  const next = await executeAndWaitReward(1);
  expect(next.nonce).toBe(nonce + 1);
  await expectSameAsFreshIndex();
});

it('a reorganisation deeper than the window stops the indexer loudly, until the chain holds its blocks again', async () => {
  await indexedToHead(laurel);
  const indexedChain = (await send('anvil_dumpState', [])) as string;
  await reorg(FINALITY_DEPTH + 2);
  const ready = await waitUntil('/ready to fail', async () => {
    const answer = await request<{ failing: string[]; checks: { indexer: unknown[] } }>(
      laurel.url,
      'GET',
      '/ready',
    );
    return answer.status === 503 && answer;
  });
  expect(ready.body.failing).toEqual(['indexer local']);
  const { fork } = indexerOf(laurel);
  expect(fork).toEqual({
    block: expect.any(Number),
    indexedHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    chainHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
  });
  expect(fork!.chainHash).not.toBe(fork!.indexedHash);
  expect(ready.body.checks.indexer).toEqual([expect.objectContaining({ chain: 'local', fork })]);
  const stopped = logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.level === 50);
  expect(stopped).toMatchObject({
    chain: 'local',
    indexedHash: fork!.indexedHash,
    chainHash: fork!.chainHash,
  });

  await send('anvil_loadState', [indexedChain]);
  await waitUntil(
    '/ready to pass again',
    async () => (await request(laurel.url, 'GET', '/ready')).status === 200,
  );
  expect(indexerOf(laurel).fork).toBeNull();
  await expectSameAsFreshIndex();
});
