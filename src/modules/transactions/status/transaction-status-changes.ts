/**
 * Changes of recorded transactions' statuses (recorded pending, mined success or failed, dropped,
 * pending again after a reorganisation, unrecorded), told to every listening process: each write
 * of a status in TransactionsRepository sends a NOTIFY in its own database transaction, so another
 * process's worker (receipts, reorganisation checks) reaches this process's subscribers.
 */
import type { NotificationSession } from '../../../db/notifications';
import { Prisma, type SqlClient } from '../../../db/prisma';

const CHANNEL = 'laurel_transaction_statuses';

/** The NOTIFY of a change of the status of `hash` on `chainId`, in the statement that changed it. */
export function transactionStatusNotice(chainId: number, hash: string): Prisma.Sql {
  return Prisma.sql`pg_notify(${CHANNEL}, ${`${chainId}:${hash.toLowerCase()}`})`;
}

/** Inside the database transaction that changed the status of `hash` on `chainId`. */
export async function notifyTransactionStatus(db: SqlClient, chainId: number, hash: string): Promise<void> {
  await db.$executeRaw`SELECT ${transactionStatusNotice(chainId, hash)}`;
}

/** Told that a transaction's status may have changed. */
export type StatusWatcher = () => void;

/** Who watches which transaction (by hash, on any chain); each is woken when its status may have changed. */
export class TransactionStatusChanges {
  private readonly watchers = new Map<string, Set<StatusWatcher>>();

  constructor(session: NotificationSession) {
    session.on(CHANNEL, {
      notified: (payload) => this.wake(payload.slice(payload.indexOf(':') + 1)),
      // Statuses written while nobody listened are unknown: every watcher looks again.
      missed: () => {
        for (const watchers of this.watchers.values()) for (const watcher of watchers) watcher();
      },
    });
  }

  /** Wakes `watcher` whenever the status of `hash` may have changed; returns what stops it. */
  watch(hash: string, watcher: StatusWatcher): () => void {
    const key = hash.toLowerCase();
    const watchers = this.watchers.get(key) ?? new Set<StatusWatcher>();
    watchers.add(watcher);
    this.watchers.set(key, watchers);
    return () => {
      watchers.delete(watcher);
      if (watchers.size === 0 && this.watchers.get(key) === watchers) this.watchers.delete(key);
    };
  }

  private wake(hash: string): void {
    for (const watcher of this.watchers.get(hash.toLowerCase()) ?? []) watcher();
  }
}
