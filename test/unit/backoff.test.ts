import { doublingDelayMs } from '../../src/backoff';

describe('doublingDelayMs', () => {
  it('doubles from the first wait and stops at the longest', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((attempt) => doublingDelayMs(attempt, 1000, 15_000))).toEqual([
      1000, 2000, 4000, 8000, 15_000, 15_000, 15_000,
    ]);
  });

  it('stays the longest however many attempts, and the first before any', () => {
    expect(doublingDelayMs(10_000, 250, 30_000)).toBe(30_000);
    expect(doublingDelayMs(-1, 250, 30_000)).toBe(250);
  });
});
