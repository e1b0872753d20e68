import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { ChainRegistry } from '../../chain/registry';
import type { PrismaClient } from '../../db/prisma';
import { recordReceipt, waitForReceipt } from '../../modules/transactions/transactions.service';

/**
 * transactions__track_receipt {chainId, hash}: waits (briefly) for a broadcast transaction's
 * receipt and writes its outcome on the `transactions` row. Not mined yet: the task fails and
 * graphile-worker retries it with exponential backoff. On the last attempt, a transaction the
 * node does not know any more (dropped) is marked failed.
 */

export interface TrackReceiptDeps {
  prisma: PrismaClient;
  chains: ChainRegistry;
}

const payloadSchema = z.object({
  chainId: z.number().int().positive(),
  hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
});

/** How long one attempt waits for the receipt before handing the job back for a retry. */
export const TRACK_RECEIPT_ATTEMPT_WAIT_MS = 2000;

export function createTrackReceiptTask(services: TrackReceiptDeps): Task {
  return async (payload, helpers) => {
    const { chainId, hash } = payloadSchema.parse(payload);
    const chain = services.chains.byChainId(chainId);
    if (!chain) {
      helpers.logger.warn(`chain id ${chainId} is not served any more: not tracking ${hash}`);
      return;
    }
    const receipt = await waitForReceipt(services.chains, chain, hash, TRACK_RECEIPT_ATTEMPT_WAIT_MS);
    if (receipt) {
      await recordReceipt(services.prisma, chainId, receipt);
      return;
    }
    if (helpers.job.attempts >= helpers.job.max_attempts) {
      const known = await services.chains
        .call(chain, (provider) => provider.getTransaction(hash))
        .catch(() => undefined);
      if (known === null) {
        await services.prisma.transaction.updateMany({
          where: { chainId, hash },
          data: { status: 'failed' },
        });
        return;
      }
    }
    throw new Error(`transaction ${hash} on chain ${chain.name} has no receipt yet`);
  };
}
