/**
 * What undoing a block needs besides the rows that carry its block number: its token and badge
 * transfers and operator changes (a balance, a holding or an operator row does not say which
 * blocks made it). Kept as compact JSON with the block (indexed_blocks.undo) or with a receipt's
 * marks (indexer_receipt_logs.undo) while a reorganisation may still replace the block.
 */
import type { IndexEvent } from './log-decoder';

/** One journalled event: its kind, log index, then its fields (amounts as decimal strings). */
type Entry =
  | ['t', number, string, string, string, string]
  | ['b', number, string, string, string]
  | ['o', number, string, string, 0 | 1];

function entryOf(event: IndexEvent): Entry | null {
  switch (event.type) {
    case 'tokenTransfer':
      return ['t', event.logIndex, event.token, event.from, event.to, event.value.toString()];
    case 'badgeTransfer':
      return ['b', event.logIndex, event.badge, event.from, event.to];
    case 'operator':
      return ['o', event.logIndex, event.app, event.operator, event.added ? 1 : 0];
    default:
      return null;
  }
}

/** The journal of `events` (of one block, in chain order) as JSON; null when none needs one. */
export function journalOf(events: readonly IndexEvent[]): string | null {
  const entries: Entry[] = [];
  for (const event of events) {
    const entry = entryOf(event);
    if (entry) entries.push(entry);
  }
  return entries.length > 0 ? JSON.stringify(entries) : null;
}

/** The events of a journal (as PostgreSQL returns jsonb: parsed) of block `blockNumber`. */
export function eventsOfJournal(blockNumber: number, journal: unknown): IndexEvent[] {
  const position = (logIndex: number) => ({ blockNumber, logIndex, transactionHash: '' });
  return (journal as Entry[]).map((entry): IndexEvent => {
    switch (entry[0]) {
      case 't':
        return {
          ...position(entry[1]),
          type: 'tokenTransfer',
          token: entry[2],
          from: entry[3],
          to: entry[4],
          value: BigInt(entry[5]),
        };
      case 'b':
        return {
          ...position(entry[1]),
          type: 'badgeTransfer',
          badge: entry[2],
          from: entry[3],
          to: entry[4],
        };
      case 'o':
        return {
          ...position(entry[1]),
          type: 'operator',
          app: entry[2],
          operator: entry[3],
          added: entry[4] === 1,
        };
    }
  });
}
