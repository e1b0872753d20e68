import type { Chain } from '../../../chain/registry';
import { blockHeaders } from '../../../chain/block-headers';
import { finalizedBlock } from '../../../chain/finality';
import type { ReceiptChecks } from '../../../jobs/tasks';
import { markNonceBroadcast } from '../building/nonce-reservations';
import { onItsWaySince, type Rebroadcaster } from '../sending/rebroadcaster';
import type { TransactionsDeps } from '../transactions.deps';
import { RECEIPT_CHECK_INTERVAL_MS, unsentReason } from './receipt-tracker';

/** Blocks below the head that a recorded mined transaction is checked in (deeper ones are final). */
export const RECONCILE_DEPTH_BLOCKS = 64;

/**
 * Keeps what Laurel recorded in agreement with the chains: receipts a reorganisation took away
 * (transactions__check_receipts, scheduled at once when the indexer finds one), and transactions a
 * chain no longer knows (on every start, and after the local chain restarts).
 */
export class Reconciliation implements ReceiptChecks {
  constructor(
    private readonly deps: TransactionsDeps,
    /** Sends again what the node lost; marks dropped what Laurel does not send again. */
    private readonly rebroadcaster: Rebroadcaster,
  ) {}

  /**
   * One check of a chain's recorded receipts above its finalized block (transactions__check_receipts):
   * a receipt whose block the chain replaced makes its transaction pending again, followed by its
   * receipt job until it is mined again (a new receipt, a new `transaction` event) or dropped, and
   * its nonce is held for it meanwhile; Laurel sends it again at once if the node does not have it
   * (../sending/rebroadcaster.ts). A block the node does not have (yet) is checked next time.
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
    const reopened: string[] = [];
    for (const receipt of recorded) {
      const header = onChain.get(receipt.blockNumber);
      if (!header || header.hash === receipt.blockHash) continue;
      const pending = await transactions.reopen(chainId, receipt);
      if (!pending) continue;
      reopened.push(receipt.hash);
      await markNonceBroadcast(this.deps.pool, {
        chainId,
        sender: pending.sender,
        nonce: pending.nonce,
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
    // Nodes put the transactions of replaced blocks back into their pools; anvil does not.
    if (reopened.length > 0) await this.rebroadcaster.rebroadcast(chain, reopened, { wereMined: true });
    if (reopened.length < recorded.length) {
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
   * restarts). A pending transaction the node does not know, recorded before it could still be on
   * its way (the process stopped between record and send, or the node dropped it from its pool),
   * is sent again (../sending/rebroadcaster.ts); one Laurel does not send again is marked
   * `dropped` once pending for TRANSACTION_DROP_AFTER_SECONDS. A transaction recorded as mined
   * that the node does not know (mined in blocks a crashed anvil did not save) is marked
   * `dropped`. Each dropped one has its receipt job removed and its nonce freed, so the sender's
   * next build uses the chain's next nonce instead of waiting behind a gap. Returns the hashes
   * marked dropped.
   */
  async reconcile(chain: Chain): Promise<string[]> {
    const { chains, transactions, config } = this.deps;
    const head = await chains.withProvider(chain, (provider) => provider.getBlockNumber());
    const rows = await transactions.unsettled(
      chain.chainId,
      head - RECONCILE_DEPTH_BLOCKS,
      onItsWaySince(config),
    );
    const pending = rows.filter((row) => row.status === 'pending');
    const outcomes = await this.rebroadcaster.rebroadcast(
      chain,
      pending.map((row) => row.hash),
    );
    const dropAfterSeconds = config.transactions.dropAfterSeconds;
    const pendingBefore = new Date(Date.now() - dropAfterSeconds * 1000);
    const dropped: string[] = [];
    for (const row of rows) {
      let reason: string;
      if (row.status === 'pending') {
        const outcome = outcomes.get(row.hash)!;
        if (outcome === 'refused') dropped.push(row.hash);
        const unsent = outcome === 'not_held' || outcome === 'used_up' || outcome === 'behind_gap';
        if (!unsent || row.updatedAt >= pendingBefore) continue;
        reason = unsentReason(outcome, `for ${dropAfterSeconds} s (TRANSACTION_DROP_AFTER_SECONDS)`);
      } else {
        const known = await chains.withProvider(chain, (provider) => provider.getTransaction(row.hash));
        if (known) continue;
        reason = `recorded as mined, then unknown to the node: the chain lost its block`;
      }
      if (await this.rebroadcaster.drop(chain, row.hash, row.status, reason)) dropped.push(row.hash);
    }
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
