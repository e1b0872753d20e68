import { Contract, Wallet } from 'ethers';
import type { Pool } from 'pg';
import { appFactoryInterface } from '../../src/chain/contracts';
import { readCursor } from '../../src/indexer/index-store';
import { mined } from '../helpers/chain';
import { createTestPool, withNotificationsHeldBack } from '../helpers/database';
import { client, createApp, eventArg, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * execute-and-wait answers once its transaction's events are in the index. Its fast path ingests
 * the receipt at once; when that cannot (PostgreSQL refuses the receipt's marks, or the receipt
 * has logs of a contract the index does not know yet), it waits for the indexer to reach the block
 * instead. The indexer polls every 3 s here, so an answer that did not wait would come before the
 * index has the reward.
 */
let laurel: TestLaurel;
let pool: Pool;
let api: Client;
let appId: string;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true, env: { INDEXER_POLL_INTERVAL_MS: '3000' } });
  pool = createTestPool(laurel.databaseUrl, 1);
  const owner = laurel.chain!.wallets[1]!;
  const [key] = await issueApiKeys(laurel.url, [owner]);
  api = client(laurel.url, key, owner);
  appId = await createApp(api, 'Read your writes');
});
afterAll(async () => {
  await pool?.end();
  await laurel?.stop();
});

/** Builds an XP reward of `user` through Laurel; returns the unsigned transaction. */
async function buildReward(app: string, action: string, amount: number, user: string): Promise<Unsigned> {
  const built = await api.post('/reward/XP', {
    chain: 'local',
    app_id: app,
    action_id: action,
    receiver: user,
    amount,
  });
  expect(built.status).toBe(200);
  return built.body.unsignedTransaction as Unsigned;
}

/**
 * Builds an XP reward of a new user (or of `user`) through Laurel, signs it and runs
 * execute-and-wait; returns the user and the receipt.
 */
async function rewardNewUser(
  app: string,
  action: string,
  amount: number,
  user = Wallet.createRandom().address,
) {
  const unsigned = await buildReward(app, action, amount, user);
  const receipt = (await api.execute(unsigned)) as unknown as { blockNumber: number };
  return { user, receipt };
}

it('answers with the reward in the index when its app was created at the factory in a block the indexer has not reached', async () => {
  const owner = laurel.chain!.wallets[1]!;
  const factory = new Contract(laurel.chain!.factory, appFactoryInterface, owner);
  const created = await mined(factory.createApp('Straight at the factory'));
  const app = eventArg(created.logs, appFactoryInterface, 'AppCreated', 'app');
  const { user } = await rewardNewUser(app, 'first', 3);

  const profile = await api.get(`/profile?chain=local&user_id=${user}&app_id=${app}`);
  expect(profile.body).toMatchObject({ xp_balance: '3', completed_actions: [{ name: 'first' }] });
});

/** Runs `body` while PostgreSQL refuses the receipts' marks: no receipt can be ingested. */
async function withReceiptMarksRefused(body: () => Promise<void>): Promise<void> {
  await pool.query(`
    CREATE FUNCTION refuse_receipt_marks() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'receipt marks refused by the test'; END $$;
    CREATE TRIGGER refuse_receipt_marks BEFORE INSERT ON indexer_receipt_logs
      FOR EACH ROW EXECUTE FUNCTION refuse_receipt_marks();`);
  try {
    await body();
  } finally {
    await pool.query(`
      DROP TRIGGER refuse_receipt_marks ON indexer_receipt_logs;
      DROP FUNCTION refuse_receipt_marks();`);
  }
}

it('answers with the reward in the index when the receipt could not be ingested: after the indexer has it', async () => {
  await withReceiptMarksRefused(async () => {
    const { user, receipt } = await rewardNewUser(appId, 'visited', 5);

    const profile = await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
    expect(profile.body).toMatchObject({ xp_balance: '5', completed_actions: [{ name: 'visited' }] });
    // The indexer wrote it, not the receipt's ingestion: no mark of that block.
    const { rows } = await pool.query('SELECT 1 FROM indexer_receipt_logs WHERE block_number = $1', [
      receipt.blockNumber,
    ]);
    expect(rows).toEqual([]);
  });
});

/** The profile's completed actions, read twice: the read cache keeps a profile from its second read. */
async function actionsReadTwice(user: string): Promise<string[]> {
  await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
  const profile = await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
  expect(profile.status).toBe(200);
  return (profile.body.completed_actions as { name: string }[]).map((action) => action.name);
}

it('answers with the reward in the index when the indexer wrote it first and its notification has not come yet', async () => {
  const owner = laurel.chain!.wallets[1]!;
  const user = Wallet.createRandom().address;
  expect(await actionsReadTwice(user)).toEqual([]);
  await withNotificationsHeldBack(laurel.databaseUrl, async () => {
    const unsigned = await buildReward(appId, 'indexed first', 2, user);
    // Sent straight to the node: the indexer puts it in the index before execute-and-wait sees it.
    const signed = await owner.signTransaction(unsigned);
    const receipt = (await (await laurel.chain!.provider.broadcastTransaction(signed)).wait())!;
    await waitUntil('the indexer to pass the block', async () => {
      const cursor = await readCursor(pool, laurel.chain!.chainId);
      return cursor !== null && cursor >= receipt.blockNumber;
    });
    await api.execute(unsigned);
    expect(await actionsReadTwice(user)).toEqual(['indexed first']);
  });
});

it('answers with the reward in the index when the receipt could not be ingested, after the indexer has it, before its notification has come', async () => {
  const user = Wallet.createRandom().address;
  expect(await actionsReadTwice(user)).toEqual([]);
  await withReceiptMarksRefused(() =>
    withNotificationsHeldBack(laurel.databaseUrl, async () => {
      await rewardNewUser(appId, 'waited for the indexer', 4, user);
      expect(await actionsReadTwice(user)).toEqual(['waited for the indexer']);
    }),
  );
});
