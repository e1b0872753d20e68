import { LATEST_SECOND, planWindow } from '../../src/indexer/read/leaderboard-window';

const DAY = 86_400;
const jan2 = Date.UTC(2026, 0, 2) / 1000;

describe('planWindow (leaderboard windows: whole UTC days from daily totals, partial days from actions)', () => {
  it('reads a window of whole days (end = the last second of a day) from daily totals only', () => {
    expect(planWindow(jan2, jan2 + 3 * DAY - 1)).toEqual({
      days: { first: '2026-01-02', last: '2026-01-04' },
      edges: [],
    });
  });

  it('reads the partial days at both ends from the completed actions, end inclusive', () => {
    expect(planWindow(jan2 + 100, jan2 + 2 * DAY + 5)).toEqual({
      days: { first: '2026-01-03', last: '2026-01-03' },
      edges: [
        { from: jan2 + 100, to: jan2 + DAY },
        { from: jan2 + 2 * DAY, to: jan2 + 2 * DAY + 6 },
      ],
    });
  });

  it('reads a window inside one day from the completed actions only', () => {
    expect(planWindow(jan2 + 10, jan2 + 20)).toEqual({
      days: null,
      edges: [{ from: jan2 + 10, to: jan2 + 21 }],
    });
    expect(planWindow(jan2 + 10, jan2 + 10)).toEqual({
      days: null,
      edges: [{ from: jan2 + 10, to: jan2 + 11 }],
    });
  });

  it('opens a missing start at the epoch and a missing end at year 9999; an empty window reads nothing', () => {
    expect(planWindow(undefined, jan2 - 1)).toEqual({
      days: { first: '1970-01-01', last: '2026-01-01' },
      edges: [],
    });
    expect(planWindow(jan2, undefined)).toEqual({
      days: { first: '2026-01-02', last: '9999-12-31' },
      edges: [],
    });
    expect(planWindow(jan2, LATEST_SECOND + 1000).days?.last).toBe('9999-12-31');
    expect(planWindow(jan2 + 5, jan2 + 4)).toEqual({ days: null, edges: [] });
  });
});
