import type { Pool } from 'pg';
import type { ChainRegistry } from '../../chain/registry';
import type { Config } from '../../config';
import type { PrismaClient } from '../../db/prisma';
import type { Indexer } from '../../indexer/indexer';
import type { Logger } from '../../logger';
import type { LaurelMetrics } from '../../metrics';
import type { FirstAttempts } from '../webhooks/webhook-first-attempts';
import type { TransactionStatusChanges } from './status/transaction-status-changes';
import type { TransactionsRepository } from './transactions.repository';

/** What the parts of the transactions wing are built from; each part takes the fields it uses. */
export interface TransactionsDeps {
  config: Config;
  log: Logger;
  prisma: PrismaClient;
  /** The pool under `prisma`: the nonce statements every send makes go through it as prepared statements. */
  pool: Pool;
  chains: ChainRegistry;
  indexer: Pick<Indexer, 'ingestReceipt'>;
  transactions: TransactionsRepository;
  /** Status changes of recorded transactions, heard from every process (transactionStatus subscriptions). */
  statusChanges: TransactionStatusChanges;
  /** The `transaction` events' first webhook attempts, made by this process after recording a receipt. */
  firstAttempts: Pick<FirstAttempts, 'leaseSeconds' | 'start'>;
  /** Counts broadcasts by outcome and transactions dropped (null: METRICS=off). */
  metrics: LaurelMetrics | null;
  /** Aborted near the end of a stop's grace: execute-and-wait answers what it knows. */
  answerNow: AbortSignal;
}
