import { defineModule } from '../module';
import { webhooksModule } from '../webhooks/webhooks.module';
import { UnsentBuilds } from './building/unsent-builds';
import { ReceiptTracker } from './following/receipt-tracker';
import { Reconciliation } from './following/reconciliation';
import { Rebroadcaster } from './sending/rebroadcaster';
import { TransactionSender } from './sending/transaction-sender';
import { TransactionStatusChanges } from './status/transaction-status-changes';
import { TransactionStatusReader } from './status/transaction-status';
import type { TransactionsDeps } from './transactions.deps';
import { TransactionsRepository } from './transactions.repository';
import { TransactionsResolver } from './transactions.resolver';
import { transactionsRoutes } from './transactions.routes';
import type { TransactionsWing } from './transactions.wing';

/**
 * Broadcasting signed transactions and following them to their receipts. The builds' nonce
 * reservations are here too (building/), the TransactionBuilder every module uses among them.
 */
export const transactionsModule = defineModule({
  name: 'transactions',
  service: ({
    config,
    log,
    prisma,
    pool,
    chains,
    events,
    indexer,
    metrics,
    notifications,
    answerNow,
    serviceOf,
  }) => {
    const deps: TransactionsDeps = {
      config,
      log,
      prisma,
      pool,
      chains,
      indexer,
      transactions: new TransactionsRepository(prisma, pool),
      statusChanges: new TransactionStatusChanges(notifications),
      firstAttempts: serviceOf(webhooksModule).firstAttempts,
      metrics,
      answerNow,
    };
    const rebroadcaster = new Rebroadcaster(deps);
    const following = new ReceiptTracker(deps, rebroadcaster);
    const reconciliation = new Reconciliation(deps, rebroadcaster);
    // A crashed local chain may have lost blocks: once it is back, recorded transactions are checked.
    events.on('chainRestarted', async (chain) => void (await reconciliation.reconcile(chain)));
    // A reorganisation may have taken recorded receipts away: their check runs at once.
    events.on('chainReorganised', ({ chain }) =>
      reconciliation
        .scheduleReceiptCheckNow(chain)
        .catch((error: unknown) =>
          log.warn(
            { chain: chain.name, err: error },
            'could not schedule the check of receipts after a reorganisation',
          ),
        ),
    );
    const wing: TransactionsWing = {
      sending: new TransactionSender(deps, following),
      following,
      reconciliation,
      status: new TransactionStatusReader(deps, following),
      unsentBuilds: new UnsentBuilds(deps),
    };
    return wing;
  },
  resolver: TransactionsResolver,
  routes: transactionsRoutes,
  tasks: ({ following, reconciliation }) => ({ receipts: following, receiptChecks: reconciliation }),
  start: ({ reconciliation }) => reconciliation.reconcileAllChains(),
});
