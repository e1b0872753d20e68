/** Built and executed transactions: nonce reservations, waits, drops and permit deadlines. */
import { positiveInt, type Parsed } from './values';

export const transactionsVariables = {
  NONCE_RESERVATION_TTL_SECONDS: positiveInt(120).describe(
    'how long a nonce handed to a built transaction stays reserved if it is never broadcast',
  ),
  EXECUTE_WAIT_TIMEOUT_SECONDS: positiveInt(30).describe(
    'how long `execute-and-wait` waits for the receipt before answering `Timeout`',
  ),
  TRANSACTION_DROP_AFTER_SECONDS: positiveInt(600).describe(
    'a recorded, unmined transaction the node has not known for this long, and that Laurel does not send again (no signed bytes kept, its sends again used up, or a nonce before it missing), is marked dropped and its nonce freed',
  ),
  TRANSACTION_REBROADCAST_ATTEMPTS: positiveInt(5).describe(
    'how many times Laurel sends again a recorded transaction the node lost (never sent, or dropped by a reorganisation or its pool)',
  ),
  REWARD_BATCH_MAX_ITEMS: positiveInt(200).describe(
    'most rewards one `POST /reward/batch` (GraphQL `rewardBatch`) takes; each costs gas in the one transaction, so keep the largest mixed batch under the block gas limit (see docs/api-notes.md)',
  ),
  PERMIT_DEADLINE_SECONDS: positiveInt(3600).describe(
    'lifetime of permit data (`deadline` = now + this, in Unix seconds)',
  ),
};

export interface TransactionsConfig {
  transactions: {
    nonceReservationTtlSeconds: number;
    executeWaitTimeoutSeconds: number;
    /**
     * A recorded transaction the node has not known for this long, and that Laurel does not send
     * again, is marked dropped (its nonce freed).
     */
    dropAfterSeconds: number;
    /** How many times Laurel sends again a recorded transaction the node lost. */
    rebroadcastAttempts: number;
    permitDeadlineSeconds: number;
    /** Most items of one reward batch. */
    rewardBatchMaxItems: number;
  };
}

export function transactionsConfig(e: Parsed<typeof transactionsVariables>): TransactionsConfig {
  return {
    transactions: {
      nonceReservationTtlSeconds: e.NONCE_RESERVATION_TTL_SECONDS,
      executeWaitTimeoutSeconds: e.EXECUTE_WAIT_TIMEOUT_SECONDS,
      dropAfterSeconds: e.TRANSACTION_DROP_AFTER_SECONDS,
      rebroadcastAttempts: e.TRANSACTION_REBROADCAST_ATTEMPTS,
      permitDeadlineSeconds: e.PERMIT_DEADLINE_SECONDS,
      rewardBatchMaxItems: e.REWARD_BATCH_MAX_ITEMS,
    },
  };
}
