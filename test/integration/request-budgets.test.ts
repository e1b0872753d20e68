import { Wallet } from 'ethers';
import type { Pool } from 'pg';
import type { Config } from '../../src/config';
import { RateLimitedError } from '../../src/errors';
import { createLogger } from '../../src/logger';
import { RequestBudgets, WALLET_BUDGET_LOCAL_SHARE } from '../../src/modules/auth/request-budgets';
import { createTestDatabase, createTestPool } from '../helpers/database';
import { waitUntil } from '../helpers/wait';

/**
 * Wallet budgets counted in memory first (LocallyCountedBudget): exact within a process, in
 * PostgreSQL soon after without further requests, and across processes (here: two RequestBudgets
 * on two pools, as two Laurel processes have) over by at most 1/16 of the budget per other process.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const pools: Pool[] = [];
const started: RequestBudgets[] = [];

function budgets(maxRequests: number): { budgets: RequestBudgets; pool: Pool } {
  const pool = createTestPool(database.url, 4);
  pools.push(pool);
  const auth = {
    rateLimit: { maxRequests, windowSeconds: 3600 },
    keyRequestsPerClient: 1000,
    challengesPerWallet: 1000,
    anonymousGraphqlPerClient: 1000,
  } as Config['auth'];
  const made = new RequestBudgets(pool, auth, createLogger('silent'));
  started.push(made);
  return { budgets: made, pool };
}

async function storedPoints(pool: Pool, address: string): Promise<number | undefined> {
  const { rows } = await pool.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $1', [
    `wallet:${address}`,
  ]);
  return rows[0]?.points;
}

/** Spends one request each, all at once; how many were let through (the others must be 429s). */
async function spendAll(spends: Promise<void>[]): Promise<number> {
  const outcomes = await Promise.allSettled(spends);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      expect(outcome.reason).toBeInstanceOf(RateLimitedError);
      expect((outcome.reason as RateLimitedError).headers['Retry-After']).toMatch(/^\d+$/);
    }
  }
  return outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
}

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const made of started) await made.stop();
  for (const pool of pools) await pool.end();
  await database?.drop();
});

it('is exact within one process, whatever the concurrency', async () => {
  const { budgets: one, pool } = budgets(200);
  const address = Wallet.createRandom().address;
  const accepted = await spendAll(Array.from({ length: 300 }, () => one.spendWallet(address)));
  expect(accepted).toBe(200);
  // Requests spread over time, too: the next one is refused.
  await expect(one.spendWallet(address)).rejects.toBeInstanceOf(RateLimitedError);
  expect(
    await waitUntil('the count in PostgreSQL', async () => (await storedPoints(pool, address)) ?? false),
  ).toBeGreaterThanOrEqual(200);
});

it('reaches PostgreSQL by itself, shortly after the requests', async () => {
  const { budgets: one, pool } = budgets(1_000_000);
  const address = Wallet.createRandom().address;
  for (let i = 0; i < 50; i += 1) await one.spendWallet(address);
  // No further request: the periodic send brings the count to the shared table.
  await waitUntil(
    'all 50 requests counted in PostgreSQL',
    async () => (await storedPoints(pool, address)) === 50,
  );
});

it('sends what it holds when stopped', async () => {
  const { budgets: one, pool } = budgets(1_000_000);
  const address = Wallet.createRandom().address;
  await one.spendWallet(address); // the first look goes to PostgreSQL
  for (let i = 0; i < 6; i += 1) await one.spendWallet(address);
  await one.stop();
  expect(await storedPoints(pool, address)).toBe(7);
});

it('across two processes, lets a wallet have its budget and at most 1/16 of it more per other process', async () => {
  const max = 320;
  const [a, b] = [budgets(max).budgets, budgets(max).budgets];
  const address = Wallet.createRandom().address;
  let accepted = 0;
  // Bursts from both processes at once, until both refuse.
  for (let round = 0; round < 40; round += 1) {
    accepted += await spendAll(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).spendWallet(address)));
  }
  expect(accepted).toBeGreaterThanOrEqual(max);
  expect(accepted).toBeLessThanOrEqual(max + max * WALLET_BUDGET_LOCAL_SHARE);
  await expect(a.spendWallet(address)).rejects.toBeInstanceOf(RateLimitedError);
  await expect(b.spendWallet(address)).rejects.toBeInstanceOf(RateLimitedError);
});
