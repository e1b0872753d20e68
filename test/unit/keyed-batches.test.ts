import { KeyedBatches } from '../../src/keyed-batches';
import { waitUntil } from '../helpers/wait';

/** A serve whose calls are recorded and finished from the test. */
function controlledServe() {
  const calls: { items: string[]; finish: (error?: Error) => void }[] = [];
  const serve = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({
        items,
        finish: (error) => (error ? reject(error) : resolve(items.map((item) => `${item}!`))),
      });
    });
  return { calls, serve };
}

describe('KeyedBatches', () => {
  it('serves a key’s first item at once, and the items that arrive meanwhile together next', async () => {
    const { calls, serve } = controlledServe();
    const batches = new KeyedBatches(10, serve);
    const a = batches.submit('k', 'a');
    expect(calls.map((call) => call.items)).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((item) => batches.submit('k', item));
    const other = batches.submit('other', 'x');
    expect(calls.map((call) => call.items)).toEqual([['a'], ['x']]);
    calls[0].finish();
    await expect(a).resolves.toBe('a!');
    expect(calls[2].items).toEqual(['b', 'c', 'd']);
    calls[1].finish();
    calls[2].finish();
    await expect(Promise.all([...rest, other])).resolves.toEqual(['b!', 'c!', 'd!', 'x!']);
  });

  it('takes at most maxBatch items a call, in arrival order', async () => {
    const { calls, serve } = controlledServe();
    const batches = new KeyedBatches(2, serve);
    const all = ['a', 'b', 'c', 'd'].map((item) => batches.submit('k', item));
    for (let i = 0; i < 3; i += 1) {
      await waitUntil(`call ${i + 1}`, () => calls.length > i);
      calls[i].finish();
    }
    await expect(Promise.all(all)).resolves.toEqual(['a!', 'b!', 'c!', 'd!']);
    expect(calls.map((call) => call.items)).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('fails a whole batch with its error, and serves the next one', async () => {
    const { calls, serve } = controlledServe();
    const batches = new KeyedBatches(10, serve);
    const a = batches.submit('k', 'a');
    const b = batches.submit('k', 'b');
    calls[0].finish(new Error('refused'));
    await expect(a).rejects.toThrow('refused');
    calls[1].finish();
    await expect(b).resolves.toBe('b!');
  });

  it('with gatherTurn, waits for the turn’s other items before each call', async () => {
    const { calls, serve } = controlledServe();
    const batches = new KeyedBatches(Infinity, serve, { gatherTurn: true });
    const first = ['a', 'b'].map((item) => batches.submit('k', item));
    expect(calls).toHaveLength(0);
    const c = batches.submit('k', 'c');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.map((call) => call.items)).toEqual([['a', 'b', 'c']]);
    const d = batches.submit('k', 'd');
    calls[0].finish();
    await expect(Promise.all([...first, c])).resolves.toEqual(['a!', 'b!', 'c!']);
    await waitUntil('the next call', () => calls.length > 1);
    expect(calls.map((call) => call.items)).toEqual([['a', 'b', 'c'], ['d']]);
    calls[1].finish();
    await expect(d).resolves.toBe('d!');
  });

  it('keeps an item admit refuses, in its place, for a later call', async () => {
    const { calls, serve } = controlledServe();
    const batches = new KeyedBatches(Infinity, serve, {
      gatherTurn: true,
      admit: () => {
        const seen = new Set<string>();
        return (item) => !seen.has(item[0]) && Boolean(seen.add(item[0]));
      },
    });
    const all = ['a1', 'b1', 'a2', 'c1', 'a3', 'b2'].map((item) => batches.submit('k', item));
    for (let i = 0; i < 3; i += 1) {
      await waitUntil(`call ${i + 1}`, () => calls.length > i);
      calls[i].finish();
    }
    await expect(Promise.all(all)).resolves.toEqual(['a1!', 'b1!', 'a2!', 'c1!', 'a3!', 'b2!']);
    expect(calls.map((call) => call.items)).toEqual([['a1', 'b1', 'c1'], ['a2', 'b2'], ['a3']]);
  });

  it('serves the first item waiting even when admit refuses it, so the queue never stalls', async () => {
    const { calls, serve } = controlledServe();
    const batches = new KeyedBatches(Infinity, serve, { admit: () => () => false });
    const all = ['x', 'y'].map((item) => batches.submit('k', item));
    for (let i = 0; i < 2; i += 1) {
      await waitUntil(`call ${i + 1}`, () => calls.length > i);
      calls[i].finish();
    }
    await expect(Promise.all(all)).resolves.toEqual(['x!', 'y!']);
    expect(calls.map((call) => call.items)).toEqual([['x'], ['y']]);
  });
});
