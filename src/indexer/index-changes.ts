/**
 * Which chains' index rows changed: what read caches are invalidated by. Every transaction that
 * writes index rows (a block range, an ingested receipt) also sends a PostgreSQL NOTIFY naming its
 * chain and the first UTC day whose rewards it wrote, delivered to every listening process when
 * (and only if) the transaction commits; the process that committed also reports it here
 * synchronously, before it answers anything, so its own reads (execute-and-wait, then a profile)
 * never see an older index. So does a process about to answer execute-and-wait with events that
 * another transaction wrote (the indexer, in this process or another): that commit's notification
 * may still be on its way.
 *
 * The day lets caches of past days' rewards (leaderboard windows) outlive the commits of today's
 * blocks. Any write of reward rows must name the earliest day it touched, including one that removes
 * rows (the blocks of a reorganisation rolled back), which also says so: facts once read from the
 * index (an app's XP token) may be gone with them.
 */
import type { ClientBase } from 'pg';
import { notifyChannel, type NotificationSession } from '../db/notifications';

const CHANNEL = 'laurel_index_changes';

/** A commit of index rows of one chain. */
export interface IndexChange {
  chainId: number;
  /**
   * The first UTC day (days since the epoch) whose reward rows (completed actions, reward totals)
   * changed; rows of earlier days did not. Infinity: no reward rows changed; -Infinity: unknown.
   */
  rewardsFromDay: number;
  /** Rows were taken away (reorganised blocks undone), not only added or summed into. */
  removed: boolean;
}

/**
 * Inside a transaction that writes index rows (the index writer's applyIndexWrites): tells
 * listeners once it commits.
 */
export async function notifyIndexChanged(db: ClientBase, change: IndexChange): Promise<void> {
  await notifyChannel(db, CHANNEL, formatChange(change));
}

/**
 * `<chainId>:<first reward day>` ('none': no reward rows), then `:removed` when rows were taken away.
 * A payload of only a chain id: any day, and rows may have been removed.
 */
function formatChange({ chainId, rewardsFromDay, removed }: IndexChange): string {
  return `${chainId}:${rewardsFromDay === Infinity ? 'none' : rewardsFromDay}${removed ? ':removed' : ''}`;
}

function parseChange(payload: string): IndexChange | null {
  const [chain, day, removed] = payload.split(':');
  const chainId = Number(chain);
  if (!chain || !Number.isInteger(chainId)) return null;
  const fromDay = day === 'none' ? Infinity : Number(day);
  const known = day !== undefined && !Number.isNaN(fromDay);
  return { chainId, rewardsFromDay: known ? fromDay : -Infinity, removed: !known || removed === 'removed' };
}

/** Told what changed; `null`: any chain may have changed (changes were missed). */
export type IndexChangeListener = (change: IndexChange | null) => void;

/** Commits of index rows, this process's and (through the notification session) every other's. */
export class IndexChanges {
  private readonly listeners = new Set<IndexChangeListener>();
  /** Whether commits of other processes are heard now (the LISTEN session is up). */
  listening = false;

  constructor(session: NotificationSession) {
    session.on(CHANNEL, {
      notified: (payload) => this.changed(parseChange(payload)),
      // Whatever committed while nobody listened is unknown: everything cached may be stale.
      missed: (listening) => {
        this.listening = listening;
        this.changed(null);
      },
    });
  }

  subscribe(listener: IndexChangeListener): void {
    this.listeners.add(listener);
  }

  unsubscribe(listener: IndexChangeListener): void {
    this.listeners.delete(listener);
  }

  /** Calls `wake` at each change of the chain's index (and when changes may have been missed); returns what stops it. */
  watchChain(chainId: number, wake: () => void): () => void {
    const listener: IndexChangeListener = (change) => {
      if (!change || change.chainId === chainId) wake();
    };
    this.subscribe(listener);
    return () => this.unsubscribe(listener);
  }

  /** Reports a commit of this process. */
  changed(change: IndexChange | null): void {
    for (const listener of this.listeners) listener(change);
  }
}
