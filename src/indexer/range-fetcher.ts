/** One block range of a chain: its Laurel events fetched, decoded and prepared for writing. */
import type { Chain } from '../chain/registry';
import { blockTimesOf } from './block-times';
import { prepareIndexWrites, type BlockTimes, type PreparedWrites } from './index-writer';
import {
  appEventTopics,
  decodeLogs,
  discoverContracts,
  topics,
  type ChainLog,
  type IndexEvent,
  type KnownContracts,
} from './log-decoder';
import { getLogs } from './logs-client';

/** Addresses asked of eth_getLogs at once. */
const ADDRESSES_PER_GETLOGS = 500;

export interface FetchedRange {
  from: number;
  to: number;
  events: IndexEvent[];
  blockTimes: BlockTimes;
  /** The statements writing every event, prepared while the previous range was written. */
  writes: PreparedWrites;
  fetchMs: number;
}

function byChainOrder(a: ChainLog, b: ChainLog): number {
  return a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
}

async function logsOf(
  chain: Chain,
  addresses: string[],
  eventTopics: string[],
  from: number,
  to: number,
): Promise<ChainLog[]> {
  const logs: ChainLog[] = [];
  for (let i = 0; i < addresses.length; i += ADDRESSES_PER_GETLOGS) {
    const raw = await getLogs(chain, {
      fromBlock: from,
      toBlock: to,
      address: addresses.slice(i, i + ADDRESSES_PER_GETLOGS),
      topics: [eventTopics],
    });
    for (const log of raw) {
      logs.push({
        address: log.address,
        topics: log.topics,
        data: log.data,
        blockNumber: Number(log.blockNumber),
        logIndex: Number(log.logIndex),
        transactionHash: log.transactionHash,
        blockTime: log.blockTimestamp === undefined ? undefined : Number(log.blockTimestamp),
      });
    }
  }
  return logs;
}

/**
 * Fetches and decodes the events of blocks `from..to`, adding the contracts they create to `known`:
 * the factory's apps first, then the apps' events, then transfers of their tokens and badges.
 */
export async function fetchRange(
  chain: Chain,
  known: KnownContracts,
  from: number,
  to: number,
): Promise<FetchedRange> {
  const started = performance.now();
  const factoryLogs = await logsOf(chain, [known.factory], [topics.appCreated], from, to);
  discoverContracts(factoryLogs, known);
  const appLogs = await logsOf(chain, [...known.apps], appEventTopics, from, to);
  discoverContracts(appLogs, known);
  // XP tokens are not among them: XP balances follow from Rewarded (see decodeLog).
  const transferring = [...known.tokens].filter(([, kind]) => kind !== 'xp').map(([token]) => token);
  const tokenLogs = await logsOf(chain, [...transferring, ...known.badges], [topics.transfer], from, to);
  const logs = [...factoryLogs, ...appLogs, ...tokenLogs].sort(byChainOrder);
  const events = decodeLogs(logs, known);
  const blockTimes = await blockTimesOf(chain, events, logs);
  const writes = prepareIndexWrites(chain.chainId, events, blockTimes);
  return { from, to, events, blockTimes, writes, fetchMs: Math.round(performance.now() - started) };
}
