import { NotFoundError } from '../../src/errors';
import { createLogger } from '../../src/logger';
import { liveValues, type LiveValueOptions } from '../../src/operations/live';
import { waitUntil } from '../helpers/wait';

/** A source whose changes the test makes, and whose value it sets. */
function source(initial: number) {
  const watchers = new Set<() => void>();
  const state = { value: initial, reads: 0, readAt: [] as number[], failure: null as Error | null };
  return {
    state,
    watchers,
    change: (value = state.value) => {
      state.value = value;
      for (const wake of watchers) wake();
    },
    options: (extra: Partial<LiveValueOptions<number>> = {}): LiveValueOptions<number> => ({
      read: async () => {
        state.reads += 1;
        state.readAt.push(performance.now());
        if (state.failure) throw state.failure;
        return state.value;
      },
      watch: (wake) => {
        watchers.add(wake);
        return () => watchers.delete(wake);
      },
      minIntervalMs: 0,
      log: createLogger('silent'),
      ...extra,
    }),
  };
}

describe('liveValues', () => {
  it('pushes the current value, then only values that differ from the last pushed', async () => {
    const { state, change, options } = source(1);
    const values = liveValues(options());
    expect(await values.next()).toEqual({ done: false, value: 1 });
    change(1);
    const next = values.next();
    // Read again, the same value: not pushed, the stream waits for the next change.
    await waitUntil('the second read', () => state.reads === 2);
    change(2);
    expect(await next).toEqual({ done: false, value: 2 });
    expect(state.reads).toBe(3);
    await values.return!();
  });

  it('ends at once when returned while it waits for a change, and stops watching', async () => {
    const { watchers, options } = source(1);
    const values = liveValues(options());
    await values.next();
    const waiting = values.next();
    expect(watchers.size).toBe(1);
    await values.return!();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(watchers.size).toBe(0);
  });

  it('reads at most once per interval: changes within it come together', async () => {
    const { state, change, options } = source(1);
    const values = liveValues(options({ minIntervalMs: 200 }));
    await values.next();
    change(2);
    change(3);
    change(4);
    expect(await values.next()).toEqual({ done: false, value: 4 });
    expect(state.reads).toBe(2);
    // Measured between the reads themselves, on the clock liveValues counts the interval with.
    expect(state.readAt[1]! - state.readAt[0]!).toBeGreaterThanOrEqual(200);
    await values.return!();
  });

  it('streams of the same key share one read per change', async () => {
    const { state, change, options } = source(1);
    const streams = [1, 2, 3].map(() => liveValues(options({ sharedAs: 'page 1' })));
    await Promise.all(streams.map((values) => values.next()));
    const readsBefore = state.reads;
    change(2);
    expect(await Promise.all(streams.map((values) => values.next()))).toEqual(
      streams.map(() => ({ done: false, value: 2 })),
    );
    expect(state.reads - readsBefore).toBe(1);
    await Promise.all(streams.map((values) => values.return!()));
  });

  it('ends with a first read that fails, and with a later NotFoundError', async () => {
    const failing = source(1);
    failing.state.failure = new NotFoundError('app_not_found', 'App not found');
    await expect(liveValues(failing.options()).next()).rejects.toThrow('App not found');

    const gone = source(1);
    const values = liveValues(gone.options());
    await values.next();
    gone.state.failure = new NotFoundError('transaction_not_found', 'Transaction not found');
    gone.change();
    await expect(values.next()).rejects.toThrow('Transaction not found');
    expect(gone.watchers.size).toBe(0);
  });
});
