/**
 * Turns raw logs of Laurel's contracts into index events. Which contracts are Laurel's is learnt
 * from the logs themselves: the factory's AppCreated names apps (and their XP tokens), an app's
 * CreditTokenCreated and BadgeCreated name its tokens and badges.
 */
import { AbiCoder, getAddress, getBytes } from 'ethers';
import {
  appFactoryInterface,
  appInterface,
  creditTokenInterface,
  decodeActionId,
  RewardKind,
} from '../chain/contracts';
import { remembered } from '../cache-on-success';
import { chainTextOf, type ChainText, type ChainTextLimits } from '../stored-text';

/** A log as eth_getLogs or a receipt gives it, normalised. */
export interface ChainLog {
  address: string;
  topics: readonly string[];
  data: string;
  blockNumber: number;
  logIndex: number;
  transactionHash: string;
  /** Seconds since the epoch, when the node includes it in the log (`blockTimestamp`). */
  blockTime?: number;
}

export type TokenKind = 'xp' | 'credit' | 'point';
export type RewardKindName = 'xp' | 'badge' | 'credit_mint' | 'credit_transfer' | 'point';

/** What the decoder knows of a chain's Laurel contracts (checksummed addresses). */
export interface KnownContracts {
  factory: string;
  apps: Set<string>;
  tokens: Map<string, TokenKind>;
  badges: Set<string>;
}

interface EventPosition {
  blockNumber: number;
  logIndex: number;
  transactionHash: string;
}

export type IndexEvent = EventPosition &
  (
    | { type: 'app'; app: string; owner: string; name: ChainText; xpToken: string }
    | { type: 'operator'; app: string; operator: string; added: boolean }
    | {
        type: 'token';
        app: string;
        token: string;
        name: ChainText;
        symbol: ChainText;
        decimals: number;
        kind: TokenKind;
      }
    | { type: 'badge'; app: string; badge: string; name: ChainText; baseUri: ChainText }
    | {
        type: 'reward';
        app: string;
        user: string;
        token: string;
        kind: RewardKindName;
        amount: bigint;
        actionName: string;
      }
    | { type: 'tokenTransfer'; token: string; from: string; to: string; value: bigint }
    | { type: 'badgeTransfer'; badge: string; from: string; to: string }
  );

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export const topics = {
  appCreated: appFactoryInterface.getEvent('AppCreated')!.topicHash,
  operatorAdded: appInterface.getEvent('OperatorAdded')!.topicHash,
  operatorRemoved: appInterface.getEvent('OperatorRemoved')!.topicHash,
  creditTokenCreated: appInterface.getEvent('CreditTokenCreated')!.topicHash,
  badgeCreated: appInterface.getEvent('BadgeCreated')!.topicHash,
  rewarded: appInterface.getEvent('Rewarded')!.topicHash,
  /** ERC-20 and ERC-721 Transfer share one signature. */
  transfer: creditTokenInterface.getEvent('Transfer')!.topicHash,
} as const;

/** The events of an app that the indexer follows. */
export const appEventTopics = [
  topics.operatorAdded,
  topics.operatorRemoved,
  topics.creditTokenCreated,
  topics.badgeCreated,
  topics.rewarded,
];

const rewardKindNames: Record<RewardKind, RewardKindName> = {
  [RewardKind.XP]: 'xp',
  [RewardKind.Badge]: 'badge',
  [RewardKind.CreditMint]: 'credit_mint',
  [RewardKind.CreditTransfer]: 'credit_transfer',
  [RewardKind.Point]: 'point',
};

const abi = AbiCoder.defaultAbiCoder();

/**
 * The events' `string` parameters are read as `bytes` (the same encoding): anyone can create apps,
 * tokens and badges through the open factory, with names that are not valid UTF-8, which ethers
 * refuses to decode as strings. chainTextOf then decides, here and once, what is stored.
 */
const appCreatedData = ['bytes', 'address'];
const creditTokenCreatedData = ['bytes', 'bytes', 'uint8', 'bool'];
const badgeCreatedData = ['bytes', 'bytes'];
/**
 * Checksums, remembered by the text they were computed from (an address in any case, or an
 * address topic) for the 100,000 busiest: the same users recur in every range, and a hit then
 * costs no new string.
 */
const BUSIEST_ADDRESSES = 100_000;

/** Checksummed address of an address in any case. */
export const checksum = remembered((address) => getAddress(address.toLowerCase()), BUSIEST_ADDRESSES);

/** Checksummed address held in a topic (an indexed address parameter). */
const topicAddress = remembered(
  (topic) => getAddress(`0x${topic.slice(26).toLowerCase()}`),
  BUSIEST_ADDRESSES,
);

/**
 * Adds the apps, tokens and badges that `logs` create to `known`, before any log is decoded: in one
 * transaction a credit token's initial mint comes before the app's CreditTokenCreated.
 */
export function discoverContracts(logs: readonly ChainLog[], known: KnownContracts): void {
  for (const log of logs) {
    if (log.topics[0] === topics.appCreated && checksum(log.address) === known.factory) {
      // A log that does not decode is reported by decodeLogs.
      const xpToken = tryDecode(appCreatedData, log.data)?.[1] as string | undefined;
      if (xpToken === undefined) continue;
      known.apps.add(topicAddress(log.topics[1]));
      known.tokens.set(checksum(xpToken), 'xp');
    }
  }
  for (const log of logs) {
    const topic = log.topics[0];
    if (topic !== topics.creditTokenCreated && topic !== topics.badgeCreated) continue;
    if (!known.apps.has(checksum(log.address))) continue;
    if (topic === topics.badgeCreated) known.badges.add(topicAddress(log.topics[1]));
    else {
      const isPoint = tryDecode(creditTokenCreatedData, log.data)?.[3] as boolean | undefined;
      if (isPoint === undefined) continue;
      known.tokens.set(topicAddress(log.topics[1]), isPoint ? 'point' : 'credit');
    }
  }
}

function tryDecode(types: readonly string[], data: string): unknown[] | null {
  try {
    return abi.decode(types, data).toArray();
  } catch {
    return null;
  }
}

/** A log of a Laurel contract that does not decode into an event, and why. */
export interface UndecodableLog {
  log: ChainLog;
  reason: string;
}

export interface DecodedLogs {
  events: IndexEvent[];
  /** Logs of Laurel contracts whose content is not what their event says (kept out of the index). */
  undecodable: UndecodableLog[];
}

/**
 * Decodes the logs of known Laurel contracts, in the order given; other logs are skipped. Never
 * throws for a log's content: such a log is returned as undecodable.
 */
export function decodeLogs(
  logs: readonly ChainLog[],
  known: KnownContracts,
  limits: ChainTextLimits,
): DecodedLogs {
  const decoded: DecodedLogs = { events: [], undecodable: [] };
  for (const log of logs) {
    try {
      const event = decodeLog(log, known, limits);
      if (event) decoded.events.push(event);
    } catch (error) {
      decoded.undecodable.push({ log, reason: `undecodable: ${(error as Error).message}` });
    }
  }
  return decoded;
}

function positionOf(log: ChainLog): EventPosition {
  return { blockNumber: log.blockNumber, logIndex: log.logIndex, transactionHash: log.transactionHash };
}

function decodeLog(log: ChainLog, known: KnownContracts, limits: ChainTextLimits): IndexEvent | null {
  const text = (value: unknown) => chainTextOf(getBytes(value as string), limits);
  const address = checksum(log.address);
  const topic = log.topics[0];
  if (topic === topics.transfer) {
    if (known.badges.has(address) && log.topics.length === 4) {
      return { ...positionOf(log), type: 'badgeTransfer', badge: address, ...transferParties(log) };
    }
    // XP moves only by the app's rewardXP (non-transferable, no burn): its balances come from
    // Rewarded, so its Transfer logs are neither fetched nor counted.
    const tokenKind = known.tokens.get(address);
    if (tokenKind && tokenKind !== 'xp' && log.topics.length === 3) {
      const value = BigInt(log.data);
      return { ...positionOf(log), type: 'tokenTransfer', token: address, value, ...transferParties(log) };
    }
    return null;
  }
  if (topic === topics.appCreated) {
    if (address !== known.factory) return null;
    const [name, xpToken] = abi.decode(appCreatedData, log.data);
    return {
      ...positionOf(log),
      type: 'app',
      app: topicAddress(log.topics[1]),
      owner: topicAddress(log.topics[2]),
      name: text(name),
      xpToken: checksum(xpToken as string),
    };
  }
  if (!known.apps.has(address)) return null;
  switch (topic) {
    case topics.rewarded: {
      // Three static words (uint8 kind, uint256 amount, bytes32 actionId): sliced, not ABI-decoded,
      // as this is the bulk of every block range.
      const { data } = log;
      const kind = rewardKindNames[Number.parseInt(data.slice(2, 66), 16) as RewardKind];
      if (kind === undefined || data.length !== 194) throw new Error('not a Rewarded event of an app');
      return {
        blockNumber: log.blockNumber,
        logIndex: log.logIndex,
        transactionHash: log.transactionHash,
        type: 'reward',
        app: address,
        user: topicAddress(log.topics[2]),
        token: topicAddress(log.topics[3]),
        kind,
        amount: BigInt(`0x${data.slice(66, 130)}`),
        actionName: actionNameOf(`0x${data.slice(130, 194)}`),
      };
    }
    case topics.operatorAdded:
    case topics.operatorRemoved:
      return {
        ...positionOf(log),
        type: 'operator',
        app: address,
        operator: topicAddress(log.topics[1]),
        added: topic === topics.operatorAdded,
      };
    case topics.creditTokenCreated: {
      const [name, symbol, decimals, isPoint] = abi.decode(creditTokenCreatedData, log.data);
      return {
        ...positionOf(log),
        type: 'token',
        app: address,
        token: topicAddress(log.topics[1]),
        name: text(name),
        symbol: text(symbol),
        decimals: Number(decimals),
        kind: isPoint ? 'point' : 'credit',
      };
    }
    case topics.badgeCreated: {
      const [name, baseUri] = abi.decode(badgeCreatedData, log.data);
      return {
        ...positionOf(log),
        type: 'badge',
        app: address,
        badge: topicAddress(log.topics[1]),
        name: text(name),
        baseUri: text(baseUri),
      };
    }
    default:
      return null;
  }
}

/** decodeActionId, remembered: a few action names recur in every range. */
const actionNameOf = remembered(decodeActionId, 10_000);

function transferParties(log: ChainLog): { from: string; to: string } {
  return { from: topicAddress(log.topics[1]), to: topicAddress(log.topics[2]) };
}
