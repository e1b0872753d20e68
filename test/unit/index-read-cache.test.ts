import { NotificationSession } from '../../src/db/notifications';
import { IndexChanges } from '../../src/indexer/index-changes';
import { IndexReadCache } from '../../src/indexer/read/index-read-cache';
import { createLogger } from '../../src/logger';

/**
 * The cache's rules on their own: what is answered again, what a change of the index drops. The
 * change feed is the real one, told of commits as the indexer tells it (`changed`); its LISTEN
 * session is not opened here, so `listening` is set as that session sets it.
 */
function setup(maxBytes = 1024 * 1024) {
  const changes = new IndexChanges(
    new NotificationSession('postgresql://unused.invalid/laurel', createLogger('silent')),
  );
  changes.listening = true;
  const cache = new IndexReadCache(changes, maxBytes);
  let loads = 0;
  // `reused`: kept from the first read (admission on the second read has a test of its own).
  const read = (chainId: number, key: string, reused = true) =>
    cache.read(chainId, {
      key,
      reused,
      load: async () => {
        loads += 1;
        return { key, load: loads };
      },
      sizeOf: () => 100,
    });
  return { changes, cache, read, loads: () => loads };
}

describe('IndexReadCache', () => {
  it('answers a read again until the index of its chain changes', async () => {
    const { changes, read, loads } = setup();
    const first = await read(1, 'a');
    expect(await read(1, 'a')).toBe(first);
    expect(loads()).toBe(1);
    changes.changed({ chainId: 2, rewardsFromDay: -Infinity, removed: false }); // another chain
    expect(await read(1, 'a')).toBe(first);
    changes.changed({ chainId: 1, rewardsFromDay: Infinity, removed: false }); // no rewards, other rows
    expect(await read(1, 'a')).toEqual({ key: 'a', load: 2 });
    changes.changed(null); // changes of every chain may have been missed
    expect(await read(1, 'a')).toEqual({ key: 'a', load: 3 });
  });

  it("keeps a read of past days' rewards until a change reaches one of its days", async () => {
    const { changes, cache } = setup();
    let loads = 0;
    const readDay = (day: number) =>
      cache.read(1, {
        key: `day ${day}`,
        rewardsUntilDay: day,
        reused: true,
        load: async () => `${day}: load ${(loads += 1)}`,
        sizeOf: () => 10,
      });
    expect(await readDay(10)).toBe('10: load 1');
    expect(await readDay(12)).toBe('12: load 2');
    changes.changed({ chainId: 1, rewardsFromDay: 12, removed: false }); // today's block
    changes.changed({ chainId: 1, rewardsFromDay: Infinity, removed: false }); // no reward rows
    changes.changed({ chainId: 2, rewardsFromDay: 0, removed: false }); // another chain
    expect(await readDay(10)).toBe('10: load 1');
    expect(await readDay(12)).toBe('12: load 3');
    changes.changed({ chainId: 1, rewardsFromDay: 13, removed: false });
    changes.changed({ chainId: 1, rewardsFromDay: 11, removed: false });
    changes.changed({ chainId: 1, rewardsFromDay: 14, removed: false });
    expect(await readDay(10)).toBe('10: load 1');
    expect(await readDay(12)).toBe('12: load 4');
    changes.changed({ chainId: 1, rewardsFromDay: -Infinity, removed: false }); // a notification naming no day
    expect(await readDay(10)).toBe('10: load 5');
    changes.changed(null);
    expect(await readDay(10)).toBe('10: load 6');
  });

  it('keeps an answer from the second read of its key, a reused part from the first', async () => {
    const { read, loads } = setup();
    await read(1, 'answer', false);
    await read(1, 'answer', false);
    expect(loads()).toBe(2);
    await read(1, 'answer', false);
    expect(loads()).toBe(2);
    await read(1, 'part', true);
    await read(1, 'part', true);
    expect(loads()).toBe(3);
  });

  it('shares one load among identical reads arriving together', async () => {
    const { read, loads } = setup();
    const answers = await Promise.all([read(1, 'a'), read(1, 'a'), read(1, 'b')]);
    expect(answers[0]).toBe(answers[1]);
    expect(loads()).toBe(2);
  });

  it('never serves an answer whose query raced a change of the index', async () => {
    const { changes, cache } = setup();
    let release!: () => void;
    const racing = cache.read(1, {
      key: 'a',
      reused: true,
      load: () => new Promise<string>((resolve) => (release = () => resolve('before the commit'))),
      sizeOf: () => 10,
    });
    changes.changed({ chainId: 1, rewardsFromDay: 100, removed: false }); // committed while the query ran
    release();
    expect(await racing).toBe('before the commit');
    const after = await cache.read(1, {
      key: 'a',
      reused: true,
      load: async () => 'after',
      sizeOf: () => 10,
    });
    expect(after).toBe('after');
  });

  it('caches nothing while other processes cannot be heard, or with no memory given', async () => {
    const silent = setup();
    silent.changes.listening = false;
    await silent.read(1, 'a');
    await silent.read(1, 'a');
    expect(silent.loads()).toBe(2);

    const off = setup(0);
    await off.read(1, 'a');
    await off.read(1, 'a');
    expect(off.loads()).toBe(2);
  });

  it('keeps within its memory, least recently used out first', async () => {
    const { read, loads } = setup(250); // room for two answers of 100
    await read(1, 'a');
    await read(1, 'b');
    await read(1, 'a');
    await read(1, 'c'); // evicts b
    expect(loads()).toBe(3);
    await read(1, 'a');
    expect(loads()).toBe(3);
    await read(1, 'b');
    expect(loads()).toBe(4);
  });
});
