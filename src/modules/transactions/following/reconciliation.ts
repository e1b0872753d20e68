import type { Chain } from '../../../chain/registry';
import { blockHeaders } from '../../../chain/block-headers';
import { finalizedBlock } from '../../../chain/finality';
import type { ReceiptChecks } from '../../../jobs/tasks';
import { freeNoncesOf, markNonceBroadcast } from '../building/nonce-reservations';
import type { TransactionsDeps } from '../transactions.deps';
import { RECEIPT_CHECK_INTERVAL_MS } from './receipt-tracker';

/** Blocks below the head that a recorded mined transaction is checked in (deeper ones are final). */
export const RECONCILE_DEPTH_BLOCKS = 64;

/**
 * Keeps what Laurel recorded in agreement with the chains: receipts a reorganisation took away
 * (transactions__check_receipts, scheduled at once when the indexer finds one), and transactions a
 * chain no longer knows (on every start, and after the local chain restarts).
 */
export class Reconciliation implements ReceiptChecks {
  constructor(private readonly deps: TransactionsDeps) {}

  /**
   * One check of a chain's recorded receipts above its finalized block (transactions__check_receipts):
   * a receipt whose block the chain replaced makes its transaction pending again, followed by its
   * receipt job until it is mined again (a new receipt, a new `transaction` event) or dropped, and
   * its nonce is held for it meanwhile. A block the node does not have (yet) is checked next time.
   * Scheduled again while receipts above the finalized block remain.
   */
  async checkReceipts(chainId: number): Promise<void> {
    const { chains, transactions, log, prisma } = this.deps;
    const chain = chains.byChainId(chainId);
    if (!chain) return;
    const head = await chains.withProvider(chain, (provider) => provider.getBlockNumber());
    const finalized = await chains.withProvider(chain, () => finalizedBlock(chain, head));
    const recorded = await transactions.receiptsAbove(chainId, finalized);
    if (recorded.length === 0) return;
    const blocks = [...new Set(recorded.map((receipt) => receipt.blockNumber))];
    const onChain = await chains.withProvider(chain, () => blockHeaders(chain, blocks));
    let replaced = 0;
    for (const receipt of recorded) {
      const header = onChain.get(receipt.blockNumber);
      if (!header || header.hash === receipt.blockHash) continue;
      const reopened = await transactions.reopen(chainId, receipt);
      if (!reopened) continue;
      replaced += 1;
      await markNonceBroadcast(this.deps.pool, {
        chainId,
        sender: reopened.sender,
        nonce: reopened.nonce,
        transactionHash: receipt.hash,
        ttlSeconds: this.deps.config.transactions.nonceReservationTtlSeconds,
      });
      log.warn(
        {
          chain: chain.name,
          hash: receipt.hash,
          block: receipt.blockNumber,
          was: receipt.blockHash,
          now: header.hash,
        },
        'transaction: its block was replaced by a reorganisation; pending again until mined or dropped',
      );
    }
    if (replaced < recorded.length) {
      await transactions.scheduleReceiptCheck(
        prisma,
        chainId,
        new Date(Date.now() + RECEIPT_CHECK_INTERVAL_MS),
        'preserve_run_at',
      );
    }
  }

  /** The chain replaced blocks (the indexer found it): its receipts' check is moved to now (a job runs it). */
  async scheduleReceiptCheckNow(chain: Chain): Promise<void> {
    await this.deps.transactions.scheduleReceiptCheck(this.deps.prisma, chain.chainId, new Date(), 'replace');
  }

  /**
   * Makes what Laurel recorded agree with a chain again (on every start, and after the local chain
   * restarts): a transaction recorded as broadcast or mined that the node does not know, such as
   * one mined in blocks a crashed anvil did not save, or one a node dropped from its pool, is
   * marked `dropped`, its receipt job removed and its nonce freed, so the sender's next build uses
   * the chain's next nonce instead of waiting behind a gap. Pending rows younger than
   * TRANSACTION_DROP_AFTER_SECONDS are left to their receipt job. Returns the hashes marked dropped.
   */
  async reconcile(chain: Chain): Promise<string[]> {
    const { chains, transactions, log } = this.deps;
    const head = await chains.withProvider(chain, (provider) => provider.getBlockNumber());
    const rows = await transactions.unsettled(
      chain.chainId,
      head - RECONCILE_DEPTH_BLOCKS,
      new Date(Date.now() - this.deps.config.transactions.dropAfterSeconds * 1000),
    );
    const dropped: string[] = [];
    for (const row of rows) {
      const known = await chains.withProvider(chain, (provider) => provider.getTransaction(row.hash));
      if (known || !(await transactions.markDropped(chain.chainId, row.hash, row.status))) continue;
      this.deps.metrics?.transactionsDropped.inc({ chain: chain.name });
      dropped.push(row.hash);
      log.warn(
        {
          chain: chain.name,
          hash: row.hash,
          sender: row.fromAddress,
          nonce: Number(row.nonce),
          was: row.status,
        },
        'transaction unknown to the node: marked dropped, its nonce freed',
      );
    }
    await freeNoncesOf(this.deps.prisma, chain.chainId, dropped);
    return dropped;
  }

  /** reconcile() for every served chain; a chain that does not answer is skipped (and logged). */
  async reconcileAllChains(): Promise<void> {
    for (const chain of this.deps.chains.list()) {
      try {
        await this.reconcile(chain);
      } catch (error) {
        this.deps.log.warn(
          { chain: chain.name, err: (error as Error).message },
          'could not reconcile recorded transactions with the chain; will do on the next start',
        );
      }
    }
  }
}
