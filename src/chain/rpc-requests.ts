/**
 * What a JSON-RPC call needs of the provider answering it (a fresh head, or a block it must have
 * reached), and the replies of a body by id.
 */
import type { JsonRpcReply, JsonRpcRequest } from './rpc-endpoint';

/** What a call needs of the provider answering it. */
export interface Need {
  /** Reads the provider's current state (the head, 'latest', 'pending', receipts): no lagging provider. */
  fresh: boolean;
  /** Reads this block or an older one: only a provider that reported it (-1: none). */
  minBlock: number;
}

/** No constraint on the provider (a chain with one provider). */
export const ANY_PROVIDER: Need = { fresh: false, minBlock: -1 };

/** Where the JSON-RPC methods that take a block (number or tag) take it. */
export const BLOCK_PARAMETER: Readonly<Record<string, number>> = {
  eth_getBlockByNumber: 0,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_feeHistory: 1,
};

/** What `request` needs: a block number pins it to providers that have that block, a tag or none needs a fresh one. */
export function needOf(request: Pick<JsonRpcRequest, 'method' | 'params'>): Need {
  const blockOf = (value: unknown): number | null =>
    typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value) ? parseInt(value, 16) : null;
  if (request.method === 'eth_getLogs') {
    const filter = (request.params[0] ?? {}) as { toBlock?: unknown; blockHash?: unknown };
    const to = filter.blockHash === undefined ? blockOf(filter.toBlock) : null;
    return to === null ? { fresh: true, minBlock: -1 } : { fresh: false, minBlock: to };
  }
  const position = BLOCK_PARAMETER[request.method];
  const block = position === undefined ? null : blockOf(request.params[position]);
  return block === null ? { fresh: true, minBlock: -1 } : { fresh: false, minBlock: block };
}

/** What a batch of calls needs: the most any of them needs. */
export function combinedNeed(needs: Need[]): Need {
  return {
    fresh: needs.some((need) => need.fresh),
    minBlock: Math.max(-1, ...needs.map((need) => need.minBlock)),
  };
}

/** The replies of a body, by id; a single error answered to a batch applies to every call of it. */
export function repliesOf(body: unknown, sent: readonly JsonRpcRequest[]): Map<number, JsonRpcReply> {
  const replies = new Map<number, JsonRpcReply>();
  const list = Array.isArray(body) ? body : [body];
  for (const reply of list as JsonRpcReply[]) {
    if (reply && typeof reply === 'object' && typeof reply.id === 'number') replies.set(reply.id, reply);
  }
  const shared = !Array.isArray(body) && body && typeof body === 'object' && 'error' in body;
  if (shared && replies.size === 0) {
    for (const request of sent) replies.set(request.id, { ...(body as JsonRpcReply), id: request.id });
  }
  return replies;
}
