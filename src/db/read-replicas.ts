/**
 * Read replicas (DATABASE_READ_URL): streaming standbys that serve the index's reads (profiles,
 * leaderboards, the index's listings) without giving up read-your-writes.
 *
 * The rule: a read goes to a replica only when that replica has replayed every index commit this
 * process knows of; otherwise it goes to the primary at once (no waiting for a replica). A commit is
 * known when this process made it (execute-and-wait's receipt, before it answers) or heard of it
 * (NOTIFY of another process's commit, milliseconds later): the commit feed (IndexChanges) reports
 * it, and the primary's WAL position read right after (`pg_current_wal_lsn()`, at or past that
 * commit's record) becomes the position replicas must have replayed (`pg_last_wal_replay_lsn()`).
 * Until that position is read, reads go to the primary. So a caller's profile read after
 * execute-and-wait shows the receipt's events whichever server answers it, and a read cache filled
 * from a replica never keeps an answer older than the change that invalidated the one before.
 *
 * Each replica's replay position is polled: at once when the required position rises, every 25 ms
 * while the replica is behind it (so reads return to it soon after it catches up), else every second. A replica that
 * does not answer, or that fails a read with a connection error (the read is then run on the
 * primary), is down until it answers again. While the commit feed cannot hear other processes'
 * commits (its LISTEN session is lost), every read goes to the primary. `status()` tells /ready
 * (and metrics) each replica's state; the log says when one is down, or behind for over a second.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Pool, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import type { PoolerMode } from '../config';
import { ThrottledLog, type Logger } from '../logger';
import { isDatabaseUnavailable } from './availability';
import { createPool, databaseHost, type StatementLimits } from './connection';

/** What the index's readers send their statements to: a pool, or the replicas' router. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(
    queryTextOrConfig: string | QueryConfig,
    values?: unknown[],
  ): Promise<QueryResult<R>>;
}

/** Where index commits are reported (IndexChanges). */
export interface CommitFeed {
  /** Whether commits of other processes are heard now. */
  readonly listening: boolean;
  subscribe(listener: () => void): void;
}

export interface ReplicaStatus {
  /** `replica 1`, `replica 2`, … in DATABASE_READ_URL's order (never its address: /ready needs no key). */
  name: string;
  /**
   * `current`: has replayed every index commit this process knows of (reads may go to it);
   * `behind`: not yet; `down`: does not answer, or is not a standby.
   */
  state: 'current' | 'behind' | 'down';
  /** WAL bytes it has still to replay to be current (0 when current, null when down). */
  lagBytes: number | null;
  /** How long it has been in this state (ms). */
  forMs: number;
}

const CURRENT_POLL_MS = 1_000;
const BEHIND_POLL_MS = 25;
const DOWN_POLL_MS = 1_000;
/** A replica behind for longer than this is logged (it is skipped from its first byte behind). */
const BEHIND_LOGGED_AFTER_MS = 1_000;

/** A WAL position (`16/B374D848`) as a number of bytes. */
export function parseLsn(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

class Replica {
  /** The WAL position it had replayed at the last look; null while it is down. */
  replayed: bigint | null = null;
  state: ReplicaStatus['state'] = 'down';
  since = Date.now();
  /** Whether the current `behind` or `down` spell was logged. */
  logged = false;

  constructor(
    readonly name: string,
    readonly host: string,
    readonly pool: Pool,
  ) {}
}

export class ReadReplicas implements Queryable {
  private readonly replicas: Replica[];
  /** The WAL position a replica must have replayed to serve reads. */
  private required = 0n;
  /** Commits reported, and the last of them whose position is in `required` (equal: none pending). */
  private commitsSeen = 1;
  private commitsKnown = 0;
  private learning: Promise<void> | null = null;
  private feed: CommitFeed | null = null;
  private next = 0;
  private stopped = false;
  /** The pending waits of the pollers (and of learnRequired), cut short by nudge(). */
  private readonly sleeping = new Set<AbortController>();
  private pollers: Promise<void>[] = [];
  private readonly faults: ThrottledLog;

  constructor(
    /** The primary's pool (DATABASE_URL): every write, and the reads no replica can serve. */
    readonly primary: Pool,
    replicaUrls: readonly string[],
    options: { pooler: PoolerMode; poolSize: number; limits?: StatementLimits; log: Logger },
    private readonly log = options.log,
  ) {
    this.faults = new ThrottledLog(log);
    this.replicas = replicaUrls.map((url, i) => {
      const pool = createPool(url, {
        max: options.poolSize,
        connectionTimeoutMillis: 5_000,
        pooler: options.pooler,
        limits: options.limits,
      });
      pool.on('error', () => undefined); // an idle connection lost: the next poll says so
      return new Replica(`replica ${i + 1}`, databaseHost(url), pool);
    });
  }

  /** Whether replicas serve reads here (configured, and followed by an API process). */
  get serving(): boolean {
    return this.feed !== null;
  }

  /** Reads may go to replicas while `feed` hears every commit; each commit it reports is waited for. */
  follow(feed: CommitFeed): void {
    if (this.replicas.length === 0) return;
    this.feed = feed;
    feed.subscribe(() => this.committed());
    this.committed();
    this.pollers = this.replicas.map((replica) => this.poll(replica));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await Promise.all(this.pollers);
    await Promise.all(this.replicas.map((replica) => replica.pool.end()));
  }

  status(): ReplicaStatus[] {
    const now = Date.now();
    return this.replicas.map((replica) => ({
      name: replica.name,
      state: replica.state,
      lagBytes:
        replica.replayed === null
          ? null
          : Number(this.required > replica.replayed ? this.required - replica.replayed : 0n),
      forMs: now - replica.since,
    }));
  }

  query<R extends QueryResultRow = QueryResultRow>(
    queryTextOrConfig: string | QueryConfig,
    values?: unknown[],
  ): Promise<QueryResult<R>> {
    const replica = this.pick();
    if (!replica) return this.primary.query<R>(queryTextOrConfig, values);
    return replica.pool.query<R>(queryTextOrConfig, values).catch((error: unknown) => {
      if (!isDatabaseUnavailable(error)) throw error;
      this.moveTo(replica, 'down', error);
      return this.primary.query<R>(queryTextOrConfig, values);
    });
  }

  /** A replica current with every known commit (in turn), or null: the primary serves. */
  private pick(): Replica | null {
    if (!this.feed?.listening || this.commitsKnown !== this.commitsSeen) return null;
    for (let tried = 0; tried < this.replicas.length; tried += 1) {
      const replica = this.replicas[(this.next = (this.next + 1) % this.replicas.length)];
      if (replica.state !== 'down' && replica.replayed !== null && replica.replayed >= this.required) {
        return replica;
      }
    }
    return null;
  }

  /** An index commit was made or heard of: reads go to the primary until its WAL position is known. */
  private committed(): void {
    this.commitsSeen += 1;
    this.learning ??= this.learnRequired().finally(() => (this.learning = null));
  }

  private async learnRequired(): Promise<void> {
    while (!this.stopped && this.commitsKnown < this.commitsSeen) {
      const seen = this.commitsSeen;
      try {
        const { rows } = await this.primary.query<{ lsn: string }>(
          'SELECT pg_current_wal_lsn()::text AS lsn',
        );
        const position = parseLsn(rows[0].lsn);
        this.commitsKnown = seen;
        if (position > this.required) {
          this.required = position;
          this.nudge(); // replicas are asked at once whether they have replayed it
        }
      } catch (error) {
        // The primary is unreachable: reads (to the primary) fail anyway; asked again shortly.
        this.faults.write(
          'warn',
          'replica_position',
          { err: error },
          'read replicas: primary position unknown',
        );
        await this.sleep(DOWN_POLL_MS);
      }
    }
  }

  private async sleep(ms: number): Promise<void> {
    const wait = new AbortController();
    this.sleeping.add(wait);
    await delay(ms, undefined, { signal: wait.signal }).catch(() => undefined);
    this.sleeping.delete(wait);
  }

  private nudge(): void {
    for (const wait of this.sleeping) wait.abort();
  }

  private async poll(replica: Replica): Promise<void> {
    while (!this.stopped) {
      try {
        const { rows } = await replica.pool.query<{ lsn: string | null }>(
          'SELECT pg_last_wal_replay_lsn()::text AS lsn',
        );
        const lsn = rows[0].lsn;
        if (lsn === null) {
          this.moveTo(replica, 'down', new Error('not a standby (pg_last_wal_replay_lsn() is null)'));
        } else {
          replica.replayed = parseLsn(lsn);
          this.moveTo(replica, replica.replayed >= this.required ? 'current' : 'behind');
        }
      } catch (error) {
        this.moveTo(replica, 'down', error);
      }
      const wait =
        replica.state === 'current'
          ? CURRENT_POLL_MS
          : replica.state === 'behind'
            ? BEHIND_POLL_MS
            : DOWN_POLL_MS;
      await this.sleep(wait);
    }
  }

  private moveTo(replica: Replica, state: ReplicaStatus['state'], error?: unknown): void {
    if (state === 'down') replica.replayed = null;
    if (replica.state !== state) {
      if (state === 'current' && replica.logged) {
        this.log.info(
          { replica: replica.name, host: replica.host },
          'read replica current again: serving reads',
        );
      }
      replica.state = state;
      replica.since = Date.now();
      replica.logged = false;
    }
    if (replica.logged || this.stopped) return;
    if (state === 'down') {
      replica.logged = true;
      this.log.warn(
        { replica: replica.name, host: replica.host, err: error },
        'read replica down: its reads go to the primary',
      );
    } else if (state === 'behind' && Date.now() - replica.since > BEHIND_LOGGED_AFTER_MS) {
      replica.logged = true;
      this.log.warn(
        {
          replica: replica.name,
          host: replica.host,
          lagBytes: Number(this.required - (replica.replayed ?? 0n)),
        },
        'read replica behind: its reads go to the primary until it has replayed the latest index commits',
      );
    }
  }
}
