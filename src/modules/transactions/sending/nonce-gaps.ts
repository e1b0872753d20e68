import type { Transaction } from 'ethers';
import type { Chain } from '../../../chain/registry';
import { releaseUnsentNonces } from '../building/nonce-reservations';
import type { TransactionsDeps } from '../transactions.deps';
import { NonceGapError } from '../transactions.failures';
import type { SenderSignals } from './sender-signals';

/** How long a transaction above the sender's pending nonce waits, without progress, for the ones before it. */
export const NONCE_GAP_GRACE_MS = 2000;

/**
 * A transaction above the sender's next nonce would wait in the node's queue behind the missing
 * ones (rule 4 in ../building/nonce-reservations.ts). It goes on when every nonce before it is on
 * the chain or was just sent through Laurel (recorded, on its way: parallel sends of consecutive
 * nonces). Otherwise, once nothing has moved for NONCE_GAP_GRACE_MS, it is refused with the
 * missing nonces named, and their unsent reservations are freed for the next builds.
 */
export async function refuseNonceGap(
  deps: Pick<TransactionsDeps, 'config' | 'prisma' | 'transactions'> & { signals: SenderSignals },
  chain: Chain,
  transaction: Transaction,
  firstNext: number,
  pendingNonce: () => Promise<number>,
): Promise<void> {
  const sender = transaction.from!;
  const inFlightSince = new Date(Date.now() - 2 * deps.config.rpcTimeoutMs);
  let accounted = -1;
  let graceEnds = 0;
  for (let next = firstNext; ; next = await pendingNonce()) {
    if (transaction.nonce <= next) return;
    const inFlight = await deps.transactions.countInFlight(
      chain.chainId,
      sender,
      next,
      transaction.nonce,
      inFlightSince,
    );
    if (next + inFlight === transaction.nonce) return;
    // The grace restarts whenever a nonce before this one shows up (on chain or recorded).
    if (next + inFlight > accounted) {
      accounted = next + inFlight;
      graceEnds = Date.now() + NONCE_GAP_GRACE_MS;
    } else if (Date.now() >= graceEnds) {
      await releaseUnsentNonces(deps.prisma, {
        chainId: chain.chainId,
        sender,
        from: next,
        to: transaction.nonce,
      });
      throw new NonceGapError(transaction.hash!, sender, transaction.nonce, next);
    }
    await deps.signals.wait(chain.chainId, sender, 100);
  }
}
