import { CacheOnSuccess, remembered } from '../../src/cache-on-success';

describe('CacheOnSuccess', () => {
  it('keeps a found value and answers it without loading again', async () => {
    const cache = new CacheOnSuccess<string>(10);
    let loads = 0;
    const load = () => Promise.resolve(`value ${(loads += 1)}`);
    await expect(cache.get('k', load)).resolves.toBe('value 1');
    await expect(cache.get('k', load)).resolves.toBe('value 1');
    expect(loads).toBe(1);
  });

  it('keeps neither nothing found (null, undefined) nor a failure', async () => {
    const cache = new CacheOnSuccess<number>(10);
    await expect(cache.get('null', () => Promise.resolve(null))).resolves.toBeNull();
    await expect(cache.get('undefined', () => Promise.resolve(undefined))).resolves.toBeNull();
    await expect(cache.get('failed', () => Promise.reject(new Error('node down')))).rejects.toThrow(
      'node down',
    );
    await expect(cache.get('null', () => Promise.resolve(1))).resolves.toBe(1);
    await expect(cache.get('undefined', () => Promise.resolve(2))).resolves.toBe(2);
    await expect(cache.get('failed', () => Promise.resolve(3))).resolves.toBe(3);
  });

  it('shares one load among the asks of a key made at once', async () => {
    const cache = new CacheOnSuccess<number>(10);
    let loads = 0;
    let finish!: (value: number) => void;
    const load = () => {
      loads += 1;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const asks = [cache.get('k', load), cache.get('k', load), cache.get('k', load)];
    finish(5);
    await expect(Promise.all(asks)).resolves.toEqual([5, 5, 5]);
    expect(loads).toBe(1);
  });

  it('keeps at most `max` values, the least recently used going first', async () => {
    const cache = new CacheOnSuccess<string>(2);
    const loaded: string[] = [];
    const load = (key: string) => () => {
      loaded.push(key);
      return Promise.resolve(key);
    };
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('a', load('a'));
    await cache.get('c', load('c'));
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    expect(loaded).toEqual(['a', 'b', 'c', 'b']);
  });

  it('answers a value set from elsewhere, and loads again after clear()', async () => {
    const cache = new CacheOnSuccess<number>(10);
    cache.set('k', 1);
    await expect(cache.get('k', () => Promise.resolve(2))).resolves.toBe(1);
    cache.clear();
    await expect(cache.get('k', () => Promise.resolve(3))).resolves.toBe(3);
  });
});

describe('remembered', () => {
  it('computes an input once, and again after a throw', () => {
    const computed: string[] = [];
    let failing = true;
    const upper = remembered((input: string) => {
      computed.push(input);
      if (input === 'bad' && failing) throw new Error('not now');
      return input.toUpperCase();
    }, 10);
    expect([upper('a'), upper('a')]).toEqual(['A', 'A']);
    expect(() => upper('bad')).toThrow('not now');
    failing = false;
    expect(upper('bad')).toBe('BAD');
    expect(computed).toEqual(['a', 'bad', 'bad']);
  });
});
