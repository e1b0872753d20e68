import { KeyedCounts } from '../../src/keyed-counts';

it('counts per key and forgets a key once its count is back to 0', () => {
  const counts = new KeyedCounts<string>();
  expect(counts.get('a')).toBe(0);
  expect(counts.add('a', 1)).toBe(1);
  expect(counts.add('a', 1)).toBe(2);
  expect(counts.add('b', 3)).toBe(3);
  expect([...counts.entries()]).toEqual([
    ['a', 2],
    ['b', 3],
  ]);
  expect(counts.add('a', -2)).toBe(0);
  expect(counts.get('a')).toBe(0);
  expect([...counts.entries()]).toEqual([['b', 3]]);
});
