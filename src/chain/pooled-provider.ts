/**
 * The provider of a chain: an ethers JsonRpcProvider (view calls, builds, receipts, the indexer's
 * block reads use it as any JsonRpcProvider) whose transport is the chain's RpcPool.
 *
 * A subclass overriding `_send` rather than a FetchRequest with a custom `getUrlFunc`: `_send` sees
 * the JSON-RPC calls themselves (their methods and block parameters, needed to keep lagging
 * providers from the head and to broadcast transactions) and each call's own error in a batch (a
 * -32005 for one call of fifty is retried alone elsewhere); a `getUrlFunc` only sees HTTP bodies.
 * Requests made in the same tick still go out as one JSON-RPC batch.
 */
import {
  JsonRpcProvider,
  Network,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
  type TransactionReceipt,
  type TransactionReceiptParams,
} from 'ethers';
import type { JsonRpcRequest } from './rpc-endpoint';
import { logBlockTime, RpcPool, type RpcPoolOptions } from './rpc-pool';

/** The error code of the placeholder reply of a call no provider could answer (see getRpcError). */
const NO_PROVIDER_ANSWERED = -32099;

/** Block times that nodes sent with receipts, by receipt (ethers' receipts have no field for it). */
const receiptBlockTimes = new WeakMap<TransactionReceipt, number>();

/**
 * The time of a receipt's block (seconds since the epoch) when the node sent it on the receipt's
 * logs (`blockTimestamp`, which anvil, reth and recent geth add), so that no header needs reading
 * for it; undefined otherwise, or for a receipt that did not come from a PooledJsonRpcProvider.
 */
export function receiptBlockTime(receipt: TransactionReceipt): number | undefined {
  return receiptBlockTimes.get(receipt);
}

export class PooledJsonRpcProvider extends JsonRpcProvider {
  readonly pool: RpcPool;
  /** Calls no provider could answer, by id, until ethers asks for their error. */
  private readonly unanswered = new Map<number, Error>();

  constructor(chainId: number, options: RpcPoolOptions) {
    const network = Network.from(chainId);
    // No response cache: a pending nonce or receipt read 100 ms ago may already be stale.
    super(options.rpcUrls[0].url, network, {
      staticNetwork: network,
      cacheTimeout: -1,
      batchStallTime: 2,
      batchMaxCount: 50,
    });
    this.pool = new RpcPool(options);
  }

  // ethers types the replies as results only; it reads error replies too (and calls getRpcError).
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const requests = (Array.isArray(payload) ? payload : [payload]) as JsonRpcRequest[];
    const { replies, failures } = await this.pool.send(requests);
    if (failures.size === requests.length) throw failures.values().next().value;
    for (const [id, error] of failures) this.unanswered.set(id, error);
    const placeholders: JsonRpcError[] = [...failures.keys()].map((id) => ({
      id,
      error: { code: NO_PROVIDER_ANSWERED, message: 'no provider answered' },
    }));
    return [...replies, ...placeholders] as JsonRpcResult[];
  }

  /** A call no provider could answer rejects with the pool's ChainUnavailableError. */
  override getRpcError(payload: JsonRpcPayload, reply: JsonRpcError): Error {
    const failure = this.unanswered.get(payload.id);
    if (failure && reply.error.code === NO_PROVIDER_ANSWERED) {
      this.unanswered.delete(payload.id);
      return failure;
    }
    return super.getRpcError(payload, reply);
  }

  // ethers passes the node's reply as it came, before its formatting drops what it does not know.
  override _wrapTransactionReceipt(value: TransactionReceiptParams, network: Network): TransactionReceipt {
    const receipt = super._wrapTransactionReceipt(value, network);
    const [log] = (value as unknown as { logs?: readonly { blockTimestamp?: unknown }[] }).logs ?? [];
    const time = log ? logBlockTime(log) : undefined;
    if (time !== undefined) receiptBlockTimes.set(receipt, time);
    return receipt;
  }

  override destroy(): void {
    this.pool.close();
    super.destroy();
  }
}
