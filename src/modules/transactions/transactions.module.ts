import { defineModule } from '../module';
import { webhooksModule } from '../webhooks/webhooks.module';
import { TransactionStatusChanges } from './transaction-status-changes';
import { TransactionsRepository } from './transactions.repository';
import { TransactionsResolver } from './transactions.resolver';
import { transactionsRoutes } from './transactions.routes';
import { TransactionsService } from './transactions.service';

/** Broadcasting signed transactions and following them to their receipts. */
export const transactionsModule = defineModule({
  name: 'transactions',
  service: ({ config, log, prisma, pool, chains, indexer, metrics, notifications, serviceOf }) =>
    new TransactionsService({
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
    }),
  resolver: TransactionsResolver,
  routes: transactionsRoutes,
});
