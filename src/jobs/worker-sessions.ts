import { EventEmitter } from 'node:events';
import type { WorkerEvents } from 'graphile-worker';
import { Client } from 'pg';
import { isRefusedForItsState } from '../db/availability';
import { connectionConfig } from '../db/connection';
import type { Logger, ThrottledLog } from '../logger';
import { repeatEvery } from '../repeat-every';
import { WORKER_SESSION_NAME_PREFIX } from './worker-names';

/**
 * graphile-worker locks a job with its worker pool's id (`locked_by`) and frees a job whose
 * completion or failure could not be written only after 4 hours. That happens whenever a worker
 * loses its database session: a job fetched as the connection died, a job that ended while the
 * database was down (graphile-worker does not retry those writes), a process killed mid-job.
 *
 * WorkerSessions frees such jobs within seconds, for every task. Each worker pool keeps one session
 * of its own whose application_name names the pool (`laurel-jobs <pool id>`): the pool is alive
 * exactly while that session exists, and the pool fetches no job while it has none. Then, at each
 * look (see lookIntervalMs):
 * - its own jobs that it is not running (it knows which it runs) are freed: the session that
 *   locked them is gone, or their completion was lost. Fetches are held while it frees them, so a
 *   job fetched but not yet started is never freed; a job must be seen so twice in a row (a
 *   completion on its way to the database is not freed either);
 * - the jobs of a pool whose session has been missing for `goneAfterMs` (seen from this session,
 *   uninterrupted) are freed: its process died, or it could not reconnect for longer than any task
 *   runs.
 * A freed job runs again at once (`run_at` is in the past), as graphile-worker's own 4-hour reset.
 *
 * It also tells (onStalled) when every fetch of the pool has failed for a look interval while its
 * session answers: graphile-worker 0.17 reads its task ids once per runner, at the first fetch, and
 * keeps that read's promise, so a read cut by a database crash is the answer of every later fetch
 * and the runner never fetches a job again. Only a new runner reads them again. Fetches that the
 * database refuses anew for its state (isRefusedForItsState: read-only, disk full) do not count: a
 * new runner would fare no better, and its own first read would fail too.
 */

/** How long the session may take to connect or answer before it is taken as lost. */
const SESSION_TIMEOUT_MS = 5000;

/** Locked jobs by pool, and whether that pool's session exists. */
const LOCKED_JOBS = `
  SELECT j.locked_by AS pool, array_agg(j.id::text) AS ids,
         EXISTS (SELECT 1 FROM pg_stat_activity a
                  WHERE a.datname = current_database() AND a.application_name = $1 || j.locked_by) AS alive
    FROM graphile_worker.jobs j
   WHERE j.locked_by IS NOT NULL
   GROUP BY j.locked_by`;

/**
 * Frees this pool's jobs `$2` except those it runs (`$3`), and their named queues: what
 * graphile_worker.force_unlock_workers does for a whole pool, for some of its jobs.
 */
const FREE_OWN_JOBS = `
  WITH freed AS (
    UPDATE graphile_worker._private_jobs SET locked_at = NULL, locked_by = NULL
     WHERE locked_by = $1 AND id = ANY($2::bigint[]) AND NOT id = ANY($3::bigint[])
    RETURNING job_queue_id
  ), queues AS (
    UPDATE graphile_worker._private_job_queues AS q SET locked_at = NULL, locked_by = NULL
      FROM freed WHERE q.id = freed.job_queue_id AND q.locked_by = $1
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM freed)::int AS freed`;

/** Why fetches are held: each is a state that ends, so a hold cannot outlive it. */
type Hold = 'no session' | 'freeing';

/**
 * Holds job fetches (graphile-worker's `forbiddenFlags`, awaited before each fetch) while the pool
 * has no session or frees its own jobs, and knows when no fetch is under way.
 */
class FetchGate {
  private readonly holds = new Set<Hold>();
  private opened = false;
  private fetching = 0;
  private reopened: Promise<void> | null = null;
  private reopen: () => void = () => undefined;
  private drained: (() => void)[] = [];

  /** Before a fetch: null at once when open (no cost), else once open. */
  enter = (): null | Promise<null> => {
    if (this.holds.size === 0 || this.opened) {
      this.fetching += 1;
      return null;
    }
    return this.reopened!.then(() => this.enter());
  };

  /** A fetch ended (a job, none, or an error). */
  leave(): void {
    this.fetching = Math.max(0, this.fetching - 1);
    if (this.fetching === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  hold(reason: Hold): void {
    if (this.holds.size === 0) this.reopened = new Promise((resolve) => (this.reopen = resolve));
    this.holds.add(reason);
  }

  release(reason: Hold): void {
    if (!this.holds.delete(reason) || this.holds.size > 0) return;
    this.reopened = null;
    this.reopen();
  }

  /** Open from now on, whatever holds it (the worker stops: graphile-worker waits for its fetches). */
  openForGood(): void {
    this.opened = true;
    this.reopen();
  }

  /**
   * Whether no fetch is under way within `timeoutMs` (call while held): a fetch that never ends,
   * or one counted that never left, holds the others no longer than that.
   */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.fetching === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const drained = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.drained = this.drained.filter((waiting) => waiting !== drained);
        resolve(false);
      }, timeoutMs);
      this.drained.push(drained);
    });
  }
}

export class WorkerSessions {
  /** For graphile-worker's `events` option: the pool's id, the jobs it runs, its fetches. */
  readonly events = new EventEmitter() as WorkerEvents;
  private readonly gate = new FetchGate();
  private poolId: string | null = null;
  private readonly running = new Set<string>();
  private session: Client | null = null;
  private connected = false;
  private hadSession = false;
  /** Own jobs seen locked and not running at the last look. */
  private suspects = new Set<string>();
  /** Other pools seen without a session, since when (this session's time). */
  private readonly missingSince = new Map<string, number>();
  private looks: { stop(): void } | null = null;
  private stopped = false;
  /** Since when every fetch has failed (none succeeded since), null while they succeed. */
  private fetchesFailingSince: number | null = null;
  /** The last fetch's error, while fetches fail. */
  private lastFetchError: unknown = null;
  private stalled = false;
  private lookedAt = 0;
  /**
   * How often the locks are looked at while the session lasts: each look reads the locked jobs
   * (no index leads to them), so a few times per `goneAfterMs`, not every interval. A loss of the
   * session is acted on at once.
   */
  private readonly lookIntervalMs: number;

  constructor(
    private readonly options: {
      databaseUrl: string;
      /** How often the locks are looked at (and the session reopened). */
      intervalMs: number;
      /** A pool without a session this long is gone (WORKER_GONE_AFTER_SECONDS). */
      goneAfterMs: number;
      log: Logger;
      faults: ThrottledLog;
      /** After the session came back from a loss (the database is back). */
      onDatabaseBack: () => Promise<void>;
      /** Once, when the pool's fetches keep failing while its session answers: it needs replacing. */
      onStalled: () => void;
    },
  ) {
    this.lookIntervalMs = Math.min(10_000, Math.max(options.intervalMs, options.goneAfterMs / 6));
    // No fetch until the pool's session exists.
    this.gate.hold('no session');
    this.events.on('pool:create', ({ workerPool }) => {
      this.poolId = workerPool.id;
    });
    this.events.on('job:start', ({ job }) => {
      this.running.add(job.id);
      this.fetchesFailingSince = null;
      this.lastFetchError = null;
      this.gate.leave();
    });
    this.events.on('worker:getJob:empty', () => {
      this.fetchesFailingSince = null;
      this.lastFetchError = null;
      this.gate.leave();
    });
    this.events.on('worker:getJob:error', ({ error }) => {
      // A stalled runner fails every fetch with the one error of its kept read. A database that
      // answers and refuses each fetch anew (read-only, disk full) is waited out, not a stall.
      if (error === this.lastFetchError || !isRefusedForItsState(error))
        this.fetchesFailingSince ??= Date.now();
      this.lastFetchError = error;
      this.gate.leave();
    });
    this.events.on('job:complete', ({ job }) => this.running.delete(job.id));
  }

  /** For graphile-worker's `forbiddenFlags` option. */
  readonly forbiddenFlags = (): null | Promise<null> => this.gate.enter();

  start(): void {
    this.looks = repeatEvery(this.options.intervalMs, () =>
      this.tick().catch((error: unknown) => {
        this.options.faults.write(
          'warn',
          'worker_sessions',
          { err: (error as Error).message },
          'could not check the job locks',
        );
      }),
    );
  }

  /** Lets fetches through (graphile-worker's stop waits for them) and closes the session. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.looks?.stop();
    this.gate.openForGood();
    const session = this.session;
    this.session = null;
    this.connected = false;
    await session?.end().catch(() => undefined);
  }

  private async tick(): Promise<void> {
    const poolId = this.poolId;
    if (!poolId || this.stopped) return;
    if (!this.connected) {
      await this.open(poolId);
      return;
    }
    const session = this.session;
    // Own jobs seen left locked are looked at again at the next interval, to free them.
    if (this.suspects.size === 0 && Date.now() - this.lookedAt < this.lookIntervalMs) return;
    this.lookedAt = Date.now();
    await this.look(poolId).catch((error: unknown) => {
      // A session that does not answer is as good as lost: it is opened again.
      if (session) this.lost(session);
      throw error;
    });
    // The database answered: fetches failing all along since a look interval fail for the pool's
    // own reasons.
    const failingSince = this.fetchesFailingSince;
    if (!this.stalled && failingSince !== null && Date.now() - failingSince >= this.lookIntervalMs) {
      this.stalled = true;
      this.options.onStalled();
    }
  }

  /** Opens the pool's session, which fetches wait for; the next looks free what a loss left locked. */
  private async open(poolId: string): Promise<void> {
    const session = new Client({
      ...connectionConfig(this.options.databaseUrl),
      application_name: `${WORKER_SESSION_NAME_PREFIX}${poolId}`,
      keepAlive: true,
      connectionTimeoutMillis: SESSION_TIMEOUT_MS,
      query_timeout: SESSION_TIMEOUT_MS,
    });
    session.on('error', () => this.lost(session));
    session.on('end', () => this.lost(session));
    await session.connect().catch(async (error: unknown) => {
      await session.end().catch(() => undefined);
      throw error;
    });
    if (this.stopped) {
      await session.end().catch(() => undefined);
      return;
    }
    this.session = session;
    this.connected = true;
    const back = this.hadSession;
    this.hadSession = true;
    // What the loss left locked is looked at next.
    this.lookedAt = 0;
    // Fetches that failed while the database was away say nothing of the pool.
    this.fetchesFailingSince = null;
    this.gate.release('no session');
    if (back) {
      this.options.log.warn('job worker: database back');
      await this.options.onDatabaseBack();
    }
  }

  private lost(session: Client): void {
    if (this.session !== session || !this.connected) return;
    this.connected = false;
    this.session = null;
    this.suspects = new Set();
    this.missingSince.clear();
    if (!this.stopped) this.gate.hold('no session');
    this.options.faults.write('warn', 'worker_session', {}, 'job worker lost its database session');
    void session.end().catch(() => undefined);
  }

  /** One look at the locks, freeing the jobs of lost sessions. */
  private async look(poolId: string): Promise<void> {
    const session = this.session;
    if (!session) return;
    const { rows } = await session.query<{ pool: string; ids: string[]; alive: boolean }>(LOCKED_JOBS, [
      WORKER_SESSION_NAME_PREFIX,
    ]);
    const now = Date.now();
    const gone: string[] = [];
    const seen = new Set<string>();
    let own: string[] = [];
    for (const { pool, ids, alive } of rows) {
      seen.add(pool);
      if (pool === poolId) {
        own = ids.filter((id) => !this.running.has(id));
      } else if (alive) {
        this.missingSince.delete(pool);
      } else {
        const since = this.missingSince.get(pool) ?? now;
        this.missingSince.set(pool, since);
        if (now - since >= this.options.goneAfterMs) gone.push(pool);
      }
    }
    for (const pool of this.missingSince.keys()) if (!seen.has(pool)) this.missingSince.delete(pool);

    const confirmed = own.filter((id) => this.suspects.has(id));
    this.suspects = new Set(own.filter((id) => !confirmed.includes(id)));
    if (confirmed.length > 0) {
      const freed = await this.freeOwn(session, poolId, confirmed);
      if (freed > 0) {
        this.options.log.warn(
          { jobs: freed },
          'job worker: freed its jobs left locked by a lost database session; they run again',
        );
      }
    }
    if (gone.length > 0) {
      await session.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [gone]);
      for (const pool of gone) this.missingSince.delete(pool);
      this.options.log.warn(
        { workers: gone },
        'job worker: freed the jobs of workers whose database session is gone; they run again',
      );
    }
  }

  /**
   * Frees own jobs `ids` unless running, with fetches held and drained: a job fetched meanwhile is
   * then among those running. Fetches still under way after SESSION_TIMEOUT_MS: none is freed now,
   * the next looks try again.
   */
  private async freeOwn(session: Client, poolId: string, ids: string[]): Promise<number> {
    this.gate.hold('freeing');
    try {
      if (!(await this.gate.idle(SESSION_TIMEOUT_MS))) {
        this.options.faults.write(
          'warn',
          'worker_fetches',
          {},
          'job worker: fetches still under way; its jobs left locked are freed at a later look',
        );
        return 0;
      }
      const { rows } = await session.query<{ freed: number }>(FREE_OWN_JOBS, [
        poolId,
        ids,
        [...this.running],
      ]);
      return rows[0]?.freed ?? 0;
    } finally {
      this.gate.release('freeing');
    }
  }
}
