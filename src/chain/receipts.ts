import type { TransactionReceipt } from 'ethers';
import type { Chain, ChainRegistry } from './registry';
import { setTimeout as sleep } from 'node:timers/promises';

/** A receipt's log as ethers' `Log.toJSON()` has it. */
// Type aliases, not interfaces: the database stores them as JSON (Prisma's JSON input types).
export type ReceiptLogJson = {
  _type: 'log';
  address: string;
  blockHash: string;
  blockNumber: number;
  data: string;
  index: number;
  /** Absent from receipts' logs (nodes send it with logs of eth_getLogs). */
  removed?: boolean;
  topics: string[];
  transactionHash: string;
  transactionIndex: number;
};

/**
 * The receipt as the interface shows it: ethers' `TransactionReceipt.toJSON()`, as plain JSON
 * (gas figures as decimal strings).
 */
export type ReceiptJson = {
  _type: 'TransactionReceipt';
  blockHash: string;
  blockNumber: number;
  contractAddress: string | null;
  cumulativeGasUsed: string;
  from: string;
  gasPrice: string;
  blobGasUsed: string | null;
  blobGasPrice: string | null;
  gasUsed: string;
  hash: string;
  index: number;
  logs: ReceiptLogJson[];
  logsBloom: string;
  root: string | null;
  status: number | null;
  to: string | null;
};

export function receiptJson(receipt: TransactionReceipt): ReceiptJson {
  return JSON.parse(JSON.stringify(receipt.toJSON())) as ReceiptJson;
}

/**
 * Polls for a transaction's receipt until it has the chain's confirmations or `timeoutMs` passes,
 * or `stop` is aborted (null then). Node errors while waiting count as "not yet": the transaction
 * is already out. `pause` waits between polls (given the backoff's delay; it may return sooner,
 * e.g. SenderSignals.wait, which `stop` also ends).
 */
export async function waitForReceipt(
  chains: ChainRegistry,
  chain: Chain,
  hash: string,
  timeoutMs: number,
  pause: (ms: number) => Promise<unknown> = sleep,
  stop?: AbortSignal,
): Promise<TransactionReceipt | null> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  for (;;) {
    try {
      const receipt = await chains.withProvider(chain, (provider) => provider.getTransactionReceipt(hash));
      if (receipt && (chain.confirmations <= 1 || (await receipt.confirmations()) >= chain.confirmations)) {
        return receipt;
      }
    } catch {
      // unreachable node or timeout: keep waiting until the deadline
    }
    const left = deadline - Date.now();
    if (left <= 0 || stop?.aborted) return null;
    await pause(Math.min(delay, left));
    if (stop?.aborted) return null;
    delay = Math.min(delay * 2, 500);
  }
}
