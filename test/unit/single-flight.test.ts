import { sharedWithin, SingleFlight } from '../../src/single-flight';
import { waitUntil } from '../helpers/wait';

/** A promise settled from outside. */
function controlled<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('shares one load among the callers of a key while it is in flight, and loads again after', async () => {
    const flights = new SingleFlight<string, number>();
    const first = controlled<number>();
    let loads = 0;
    const load = () => {
      loads += 1;
      return first.promise;
    };
    const a = flights.run('k', load);
    const b = flights.run('k', load);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    first.resolve(7);
    await expect(Promise.all([a, b])).resolves.toEqual([7, 7]);
    await expect(flights.run('k', () => Promise.resolve(8))).resolves.toBe(8);
  });

  it('keeps keys apart, and forgets a key whose load failed', async () => {
    const flights = new SingleFlight<string, number>();
    const failing = controlled<number>();
    const a = flights.run('a', () => failing.promise);
    const b = flights.run('b', () => Promise.resolve(2));
    failing.reject(new Error('down'));
    await expect(a).rejects.toThrow('down');
    await expect(b).resolves.toBe(2);
    await expect(flights.run('a', () => Promise.resolve(1))).resolves.toBe(1);
  });

  it('starts a new load when the caller refuses the one in flight, and later callers share the new one', async () => {
    const flights = new SingleFlight<string, string>();
    const early = controlled<string>();
    const late = controlled<string>();
    const a = flights.run('k', () => early.promise);
    const since = performance.now() + 1;
    const b = flights.run(
      'k',
      () => late.promise,
      (startedAt) => startedAt >= since,
    );
    const c = flights.run('k', () => Promise.resolve('unused'));
    expect(b).not.toBe(a);
    expect(c).toBe(b);
    // The early load settling does not forget the later one.
    early.resolve('early');
    await a;
    expect(flights.run('k', () => Promise.resolve('unused'))).toBe(b);
    late.resolve('late');
    await expect(Promise.all([a, b, c])).resolves.toEqual(['early', 'late', 'late']);
  });

  it('calls the load in the caller’s turn (its requests may join that turn’s batch)', () => {
    const flights = new SingleFlight<string, number>();
    let called = false;
    void flights.run('k', () => {
      called = true;
      return Promise.resolve(1);
    });
    expect(called).toBe(true);
  });
});

describe('sharedWithin', () => {
  it('starts the load at most once per interval, running or done, and again after it', async () => {
    let loads = 0;
    const shared = sharedWithin(50, () => Promise.resolve((loads += 1)));
    const a = shared();
    await a;
    expect(shared()).toBe(a);
    expect(loads).toBe(1);
    await waitUntil('a second load, once the interval is over', async () => (await shared()) === 2);
    expect(loads).toBe(2);
  });

  it('does not wait for a load that hangs past the interval', async () => {
    const hanging = controlled<string>();
    let calls = 0;
    const shared = sharedWithin(20, () => (++calls === 1 ? hanging.promise : Promise.resolve('fresh')));
    const startedAt = Date.now();
    const first = shared();
    expect(shared()).toBe(first);
    await waitUntil('the interval to be over', () => Date.now() - startedAt >= 20);
    await expect(shared()).resolves.toBe('fresh');
    hanging.resolve('late');
    await expect(first).resolves.toBe('late');
  });
});
