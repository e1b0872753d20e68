import type { Chain } from './registry';

/** What Laurel reads of a block header: where it sits in the chain, and its time. */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

interface RawHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

/** Headers asked at once: sent in the same tick, they go out as JSON-RPC batches (see createProvider). */
const HEADERS_PER_ROUND = 200;

const hex = (n: number) => `0x${n.toString(16)}`;

function headerOf(raw: RawHeader): BlockHeader {
  return {
    number: Number(raw.number),
    hash: raw.hash,
    parentHash: raw.parentHash,
    timestamp: Number(raw.timestamp),
  };
}

/** The header of a block by number or tag (`latest`, `finalized`); null when the node has no such block. */
export async function blockHeader(chain: Chain, block: number | 'finalized'): Promise<BlockHeader | null> {
  const raw = (await chain.provider.send('eth_getBlockByNumber', [
    typeof block === 'number' ? hex(block) : block,
    false,
  ])) as RawHeader | null;
  return raw ? headerOf(raw) : null;
}

/**
 * The header of the block with this hash: immutable, whatever the chain does at its height later;
 * null when the node does not have it (not yet, or no more).
 */
export async function blockHeaderByHash(chain: Chain, hash: string): Promise<BlockHeader | null> {
  const raw = (await chain.provider.send('eth_getBlockByHash', [hash, false])) as RawHeader | null;
  return raw ? headerOf(raw) : null;
}

/**
 * The headers of `numbers`, asked in JSON-RPC batches; a block the node does not have (yet) maps to
 * null. Node errors are thrown.
 */
export async function blockHeaders(
  chain: Chain,
  numbers: readonly number[],
): Promise<Map<number, BlockHeader | null>> {
  const headers = new Map<number, BlockHeader | null>();
  for (let i = 0; i < numbers.length; i += HEADERS_PER_ROUND) {
    const round = numbers.slice(i, i + HEADERS_PER_ROUND);
    const answers = await Promise.all(round.map((n) => blockHeader(chain, n)));
    round.forEach((n, j) => headers.set(n, answers[j]));
  }
  return headers;
}
