import type { ClientBase } from 'pg';
import {
  applyIndexWrites,
  prepareIndexWrites,
  type BlockTimes,
  type PreparedWrites,
} from '../../src/indexer/index-writer';
import type { IndexEvent } from '../../src/indexer/log-decoder';

/**
 * Writes `events` (in chain order) for `chainId` with `db`, inside a transaction, as one batch: the
 * index writer's statements without the indexer's isolation of refused rows, so a test sees what
 * the statements themselves do. Returns what was written.
 */
export async function writeIndexEvents(
  db: ClientBase,
  chainId: number,
  events: readonly IndexEvent[],
  blockTimes: BlockTimes,
): Promise<PreparedWrites> {
  const writes = prepareIndexWrites(chainId, events, blockTimes);
  await applyIndexWrites(db, writes);
  return writes;
}
