import type { IndexEvent } from '../../src/indexer/log-decoder';
import { eventsOfJournal, journalOf } from '../../src/indexer/undo-journal';

const address = (n: number) => `0x${String(n).padStart(40, '0')}`;
const at = (logIndex: number) => ({ blockNumber: 7, logIndex, transactionHash: '' });

describe('the undo journal of a block', () => {
  it('keeps transfers and operator changes, in order, with amounts beyond 2^53', () => {
    const events: IndexEvent[] = [
      {
        ...at(0),
        type: 'app',
        app: address(1),
        owner: address(2),
        name: { text: 'A', raw: null },
        xpToken: address(3),
      },
      { ...at(1), type: 'operator', app: address(1), operator: address(4), added: true },
      {
        ...at(2),
        type: 'tokenTransfer',
        token: address(5),
        from: address(0),
        to: address(6),
        value: 2n ** 200n,
      },
      {
        ...at(3),
        type: 'reward',
        app: address(1),
        user: address(6),
        token: address(5),
        kind: 'credit_mint',
        amount: 1n,
        actionName: 'x',
      },
      { ...at(4), type: 'badgeTransfer', badge: address(8), from: address(6), to: address(9) },
      { ...at(5), type: 'operator', app: address(1), operator: address(4), added: false },
    ];
    const journal = journalOf(events);
    expect(eventsOfJournal(7, JSON.parse(journal!))).toEqual(
      events.filter((event) => ['operator', 'tokenTransfer', 'badgeTransfer'].includes(event.type)),
    );
  });

  it('is null for a block with nothing to journal', () => {
    expect(journalOf([])).toBeNull();
    expect(
      journalOf([
        {
          ...at(0),
          type: 'badge',
          app: address(1),
          badge: address(2),
          name: { text: 'B', raw: null },
          baseUri: { text: '', raw: null },
        },
      ]),
    ).toBeNull();
  });
});
