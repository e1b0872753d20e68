/**
 * Which chains' index rows changed: what read caches are invalidated by. Every transaction that
 * writes index rows (a block range, an ingested receipt) also sends a PostgreSQL NOTIFY naming its
 * chain and the first UTC day whose rewards it wrote, delivered to every listening process when
 * (and only if) the transaction commits; the process that committed also reports it here
 * synchronously, before it answers anything, so its own reads (execute-and-wait, then a profile)
 * never see an older index.
 *
 * The day lets caches of past days' rewards (leaderboard windows) outlive the commits of today's
 * blocks. Any write of reward rows must name the earliest day it touched, including one that removes
 * rows (the blocks of a reorganisation rolled back), which also says so: facts once read from the
 * index (an app's XP token) may be gone with them.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client, type ClientBase } from 'pg';
import { connectionConfig } from '../db/connection';
import type { Logger } from '../logger';

const CHANNEL = 'laurel_index_changes';
const RECONNECT_DELAY_MS = 1_000;

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
  await db.query('SELECT pg_notify($1, $2)', [CHANNEL, formatChange(change)]);
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

export class IndexChanges {
  private readonly listeners = new Set<IndexChangeListener>();
  private client: Client | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake = new AbortController();
  /** Whether commits of other processes are heard now (the LISTEN session is up). */
  listening = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
  ) {}

  subscribe(listener: IndexChangeListener): void {
    this.listeners.add(listener);
  }

  /** Reports a commit of this process. */
  changed(change: IndexChange | null): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Opens the LISTEN session (kept open, reopened when lost); resolves once it listens or failed once. */
  async listen(): Promise<void> {
    if (this.loop) return;
    let firstAttempt!: () => void;
    const attempted = new Promise<void>((resolve) => (firstAttempt = resolve));
    this.loop = this.run(firstAttempt);
    await attempted;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await this.client?.end().catch(() => undefined);
    await this.loop;
  }

  private async run(attempted: () => void): Promise<void> {
    while (!this.stopped) {
      const client = new Client(connectionConfig(this.databaseUrl));
      const lost = new Promise<void>((resolve) => {
        client.on('error', (error) => {
          if (!this.stopped) this.log.warn({ err: error }, 'index changes: connection lost');
          resolve();
        });
        client.on('end', () => resolve());
      });
      client.on('notification', (message) => this.changed(parseChange(message.payload ?? '')));
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
        this.client = client;
        this.listening = true;
        // Whatever committed while nobody listened is unknown: everything cached may be stale.
        this.changed(null);
        attempted();
        await lost;
      } catch (error) {
        if (!this.stopped) this.log.warn({ err: error }, 'index changes: cannot listen; retrying');
      } finally {
        this.listening = false;
        this.client = null;
        this.changed(null);
        attempted();
        await client.end().catch(() => undefined);
      }
      await delay(RECONNECT_DELAY_MS, undefined, { signal: this.wake.signal }).catch(() => undefined);
    }
  }
}
