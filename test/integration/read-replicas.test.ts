import type { Pool } from 'pg';
import { createLogger } from '../../src/logger';
import { parseLsn, ReadReplicas, type CommitFeed } from '../../src/db/read-replicas';
import { createTestDatabase, createTestPool } from '../helpers/database';
import { waitUntil } from '../helpers/wait';

/**
 * The read replicas' router where no replica can serve (the replica behaviour itself, lag and
 * outage, is tested on a real streaming replica in production-postgres.test.ts): a URL that is not
 * a standby and one nobody answers are `down`, and every read goes to the primary.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let primary: Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  primary = createTestPool(database.url, 2);
});
afterAll(async () => {
  await primary?.end();
  await database?.drop();
});

const feed = (listening: boolean): CommitFeed & { commit(): void } => {
  const listeners: (() => void)[] = [];
  return {
    listening,
    subscribe: (listener) => void listeners.push(listener),
    commit: () => listeners.forEach((listener) => listener()),
  };
};

it('reads WAL positions as bytes', () => {
  expect(parseLsn('0/0')).toBe(0n);
  expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  expect(parseLsn('0/10') > parseLsn('0/F')).toBe(true);
});

it('counts a server that is not a standby, and one that does not answer, as down, and reads from the primary', async () => {
  const reads = new ReadReplicas(primary, [database.url, 'postgresql://laurel:x@127.0.0.1:1/laurel'], {
    pooler: 'session',
    poolSize: 2,
    log: createLogger('silent'),
  });
  expect(reads.serving).toBe(false);
  const commits = feed(true);
  reads.follow(commits);
  try {
    expect(reads.serving).toBe(true);
    await waitUntil('both replicas to be looked at', () =>
      reads.status().every((replica) => replica.state === 'down' && replica.lagBytes === null),
    );
    expect(reads.status().map((replica) => replica.name)).toEqual(['replica 1', 'replica 2']);
    commits.commit();
    const { rows } = await reads.query<{ primary: boolean }>('SELECT NOT pg_is_in_recovery() AS primary');
    expect(rows).toEqual([{ primary: true }]);
  } finally {
    await reads.stop();
  }
});

it('without replicas is the primary, and shows no replica state', async () => {
  const reads = new ReadReplicas(primary, [], {
    pooler: 'session',
    poolSize: 2,
    log: createLogger('silent'),
  });
  reads.follow(feed(true));
  expect(reads.serving).toBe(false);
  expect(reads.status()).toEqual([]);
  expect((await reads.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  await reads.stop();
});
