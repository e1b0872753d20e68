import { Client } from 'pg';
import { writeIndexEvents } from '../../src/indexer/index-writer';
import { ZERO_ADDRESS, type IndexEvent } from '../../src/indexer/log-decoder';
import { createTestDatabase } from '../helpers/database';

/** Badge holder counts as the indexer keeps them, written straight into a migrated database. */
const CHAIN = 31337;
const APP = '0x00000000000000000000000000000000000000A1';
const BADGE = '0x00000000000000000000000000000000000000B1';
const holder = (n: number) => `0x${String(n).padStart(40, '0')}`;
const [alice, bob, carol, dave] = [1, 2, 3, 4].map(holder);

let database: { url: string; drop(): Promise<void> };
let db: Client;
let logIndex = 0;

const transfer = (from: string, to: string): IndexEvent => ({
  type: 'badgeTransfer',
  badge: BADGE,
  from,
  to,
  blockNumber: 2,
  logIndex: (logIndex += 1),
  transactionHash: `0x${'0'.repeat(64)}`,
});

async function write(events: IndexEvent[]): Promise<void> {
  await db.query('BEGIN');
  await writeIndexEvents(db, CHAIN, events, new Map([[1, 0]]));
  await db.query('COMMIT');
}

async function holders(): Promise<number> {
  const { rows } = await db.query<{ holders: number }>(
    'SELECT holders FROM indexed_badges WHERE chain_id = $1 AND address = $2',
    [CHAIN, BADGE],
  );
  return rows[0].holders;
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = new Client({ connectionString: database.url });
  await db.connect();
  await write([
    {
      type: 'badge',
      app: APP,
      badge: BADGE,
      name: 'Gold',
      baseUri: '',
      blockNumber: 1,
      logIndex: 0,
      transactionHash: `0x${'0'.repeat(64)}`,
    },
  ]);
});
afterAll(async () => {
  await db?.end();
  await database?.drop();
});

describe('badge holder counts', () => {
  it('count holders whose holding rises above zero, and stop counting those who give all away', async () => {
    expect(await holders()).toBe(0);
    await write([transfer(ZERO_ADDRESS, alice), transfer(ZERO_ADDRESS, alice), transfer(ZERO_ADDRESS, bob)]);
    expect(await holders()).toBe(2);
    // alice gives one of two away: still a holder; carol becomes one.
    await write([transfer(alice, carol)]);
    expect(await holders()).toBe(3);
    // bob's only badge goes to carol, and alice's last one is burnt.
    await write([transfer(bob, carol), transfer(alice, ZERO_ADDRESS)]);
    expect(await holders()).toBe(1);
    // Received and passed on within one range: no change for dave's count of holders.
    await write([transfer(ZERO_ADDRESS, dave), transfer(dave, carol)]);
    expect(await holders()).toBe(1);
  });
});
