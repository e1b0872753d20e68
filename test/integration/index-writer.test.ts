import { Client } from 'pg';
import { writeIndexEvents } from '../helpers/index-writes';
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
      name: { text: 'Gold', raw: null },
      baseUri: { text: '', raw: null },
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

describe('token balances', () => {
  it('are updated in place (HOT: no index entry per update), with room left on their pages for it', async () => {
    const TOKEN = '0x00000000000000000000000000000000000000C1';
    const holders = Array.from({ length: 300 }, (_, i) => holder(1000 + i));
    const mint = (to: string): IndexEvent => ({
      type: 'tokenTransfer',
      token: TOKEN,
      from: ZERO_ADDRESS,
      to,
      value: 5n,
      blockNumber: 2,
      logIndex: (logIndex += 1),
      transactionHash: `0x${'0'.repeat(64)}`,
    });
    await write(holders.map(mint));
    // A later range moves every one of those balances.
    await db.query('BEGIN');
    try {
      await writeIndexEvents(db, CHAIN, holders.map(mint), new Map([[2, 0]]));
      const { rows } = await db.query<{ updated: string; hot: string; balances: string[] }>(
        `SELECT pg_stat_get_xact_tuples_updated('token_balances'::regclass)::text AS updated,
                pg_stat_get_xact_tuples_hot_updated('token_balances'::regclass)::text AS hot,
                (SELECT array_agg(DISTINCT balance::text) FROM token_balances WHERE token_address = $1) AS balances`,
        [TOKEN],
      );
      expect(rows[0]).toEqual({ updated: '300', hot: '300', balances: ['10'] });
    } finally {
      await db.query('COMMIT');
    }
  });
});
