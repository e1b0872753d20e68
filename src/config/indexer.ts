/** The chain indexers: their polling, eth_getLogs ranges, the text kept of chain values, and retention. */
import { z } from 'zod';
import { DEFAULT_CHAIN_TEXT_LIMITS, type ChainTextLimits } from '../stored-text';
import { positiveInt, type Parsed } from './values';

export const indexerVariables = {
  INDEXER_POLL_INTERVAL_MS: positiveInt(1000).describe('how often a caught-up indexer looks for new blocks'),
  INDEXER_MAX_BLOCK_RANGE: positiveInt(2000).describe('largest block range asked of `eth_getLogs` at once'),
  // At most 2048: base URIs are keys of b-tree indexes, whose entries PostgreSQL bounds at about 2.7 KB.
  CHAIN_TEXT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(2048)
    .default(DEFAULT_CHAIN_TEXT_LIMITS.maxBytes)
    .describe(
      'UTF-8 bytes kept of each name, symbol or base URI read from the chain (at most 2048); a longer one is cut at a character boundary, its bytes kept beside it (see docs/api-notes.md#names-from-the-chain)',
    ),
  CHAIN_TEXT_RAW_MAX_BYTES: positiveInt(DEFAULT_CHAIN_TEXT_LIMITS.rawMaxBytes).describe(
    'bytes kept of the on-chain value of a name, symbol or base URI that is stored altered (not valid UTF-8, holding NUL, or cut); also of the data of an unindexable event',
  ),
  INDEXER_UNINDEXABLE_RETENTION_DAYS: positiveInt(30).describe(
    'days the record of an event the indexer could not write (`unindexable_events`) is kept',
  ),
};

export interface IndexerConfig {
  indexer: {
    pollIntervalMs: number;
    maxBlockRange: number;
    /** Days the record of an unindexable event is kept. */
    unindexableRetentionDays: number;
  };
  /** Bounds of names, symbols and base URIs read from the chain (src/stored-text.ts). */
  chainText: ChainTextLimits;
}

export function indexerConfig(e: Parsed<typeof indexerVariables>): IndexerConfig {
  return {
    indexer: {
      pollIntervalMs: e.INDEXER_POLL_INTERVAL_MS,
      maxBlockRange: e.INDEXER_MAX_BLOCK_RANGE,
      unindexableRetentionDays: e.INDEXER_UNINDEXABLE_RETENTION_DAYS,
    },
    chainText: { maxBytes: e.CHAIN_TEXT_MAX_BYTES, rawMaxBytes: e.CHAIN_TEXT_RAW_MAX_BYTES },
  };
}
