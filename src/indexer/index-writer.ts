/**
 * Writes decoded index events into the index tables, inside the caller's transaction. Balances and
 * reward totals are summed in memory first, so a block range costs a fixed number of statements
 * (set-based `unnest` inserts) however many events it holds. The same statements undo events of
 * reorganised blocks (prepareIndexUndo): negated amounts and holdings, operator changes reversed.
 */
import type { ClientBase } from 'pg';
import { XP_DECIMALS, XP_SYMBOL } from '../chain/contracts';
import { isRefusedForItsData } from '../db/availability';
import { prepared } from '../db/connection';
import { dayOfTime, dayString } from '../utc-days';
import { notifyIndexChanged } from './index-changes';
import { ZERO_ADDRESS, type IndexEvent } from './log-decoder';

/** The `token_address` under which reward_totals and reward_daily_totals sum the XP of every app. */
export const ALL_XP_TOKEN = ZERO_ADDRESS;

/** Seconds since the epoch of each block that holds an event. */
export type BlockTimes = ReadonlyMap<number, number>;

/**
 * A sum per key, kept as bigint (amounts are uint256), in maps nested by key part: adding to a key
 * makes no string of it (a range adds five sums per reward).
 */
class Sums<K extends readonly string[]> {
  private readonly root = new Map<string, unknown>();
  private count = 0;
  constructor(private readonly width: K['length']) {}

  add(key: K, amount: bigint): void {
    let level = this.root;
    for (let i = 0; i < this.width - 1; i += 1) {
      let next = level.get(key[i]) as Map<string, unknown> | undefined;
      if (!next) level.set(key[i], (next = new Map()));
      level = next;
    }
    const last = key[this.width - 1];
    const total = level.get(last) as bigint | undefined;
    if (total === undefined) this.count += 1;
    level.set(last, (total ?? 0n) + amount);
  }

  /** Column arrays for `unnest`: one per key part, then the totals as decimal strings. */
  columns(): string[][] {
    const columns: string[][] = Array.from({ length: this.width + 1 }, () => []);
    const parts: string[] = [];
    const walk = (level: Map<string, unknown>, depth: number) => {
      for (const [part, value] of level) {
        parts[depth] = part;
        if (depth < this.width - 1) walk(value as Map<string, unknown>, depth + 1);
        else if (value !== 0n) {
          for (let i = 0; i < this.width; i += 1) columns[i].push(parts[i]);
          columns[this.width].push((value as bigint).toString());
        }
      }
    };
    walk(this.root, 0);
    return columns;
  }

  get size(): number {
    return this.count;
  }
}

function timeOf(blockTimes: BlockTimes, blockNumber: number): number {
  const time = blockTimes.get(blockNumber);
  if (time === undefined) throw new Error(`no timestamp for block ${blockNumber}`);
  return time;
}

/** One SQL statement with its parameters. */
interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The statements that write a list of events, computed without the database: the indexer prepares
 * the next block range while the current one is being written.
 */
export interface PreparedWrites {
  chainId: number;
  /** Events written or undone (what the statements hold). */
  events: number;
  /** The first UTC day (days since the epoch) of the rewards written or undone; Infinity when none. */
  rewardsFromDay: number;
  /** Whether rows are taken away (undone events): facts read from the index may be gone. */
  removes: boolean;
  statements: Statement[];
}

/** The statements applying `events` (in chain order) for `chainId`. */
export function prepareIndexWrites(
  chainId: number,
  events: readonly IndexEvent[],
  blockTimes: BlockTimes,
): PreparedWrites {
  return prepare(chainId, events, blockTimes, 1n);
}

/**
 * The statements taking `events` (in chain order) of reorganised blocks back out of the sums they
 * were added to: balances, badge holdings and holder counts, reward totals (rows summing to zero
 * go, as a fresh index would not have them) and operators. The rows that carry the events' block
 * numbers (completed actions, apps, tokens, badges) are deleted by the caller (index-rollback.ts).
 */
export function prepareIndexUndo(
  chainId: number,
  events: readonly IndexEvent[],
  blockTimes: BlockTimes,
): PreparedWrites {
  return prepare(chainId, events, blockTimes, -1n);
}

function prepare(
  chainId: number,
  events: readonly IndexEvent[],
  blockTimes: BlockTimes,
  sign: 1n | -1n,
): PreparedWrites {
  const undo = sign < 0n;
  // Contracts, tokens and operators first, each in chain order (undone: in reverse); then the bulk writes.
  const statements: Statement[] = [];
  const statement = (sql: string, params: unknown[]) => statements.push({ sql, params });
  const balances = new Sums<[string, string]>(2);
  const holdings = new Sums<[string, string]>(2);
  const dailyRewards = new Sums<[string, string, string]>(3);
  const totalRewards = new Sums<[string, string]>(2);
  const actions: string[][] = Array.from({ length: 10 }, () => []);
  let rewardsFromDay = Infinity;
  // The day of the block before (a range's rewards come block by block).
  let lastDay = { time: NaN, day: '' };
  const dayOf = (time: number) => {
    if (time !== lastDay.time) lastDay = { time, day: dayString(dayOfTime(time)) };
    return lastDay.day;
  };

  for (const event of undo ? [...events].reverse() : events) {
    if (undo && (event.type === 'app' || event.type === 'token' || event.type === 'badge')) continue;
    switch (event.type) {
      case 'app': {
        const time = timeOf(blockTimes, event.blockNumber);
        const { text: name, raw: nameRaw } = event.name;
        statement(
          `INSERT INTO indexed_apps (chain_id, address, owner, name, name_raw, xp_token, block_number, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8)) ON CONFLICT DO NOTHING`,
          [chainId, event.app, event.owner, name, nameRaw, event.xpToken, event.blockNumber, time],
        );
        statement(
          `INSERT INTO indexed_tokens (chain_id, address, app_address, kind, name, name_raw, symbol, decimals, block_number)
           VALUES ($1, $2, $3, 'xp', $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [chainId, event.xpToken, event.app, name, nameRaw, XP_SYMBOL, XP_DECIMALS, event.blockNumber],
        );
        break;
      }
      case 'operator':
        statement(
          event.added !== undo
            ? `INSERT INTO indexed_app_operators (chain_id, app_address, operator) VALUES ($1, $2, $3)
               ON CONFLICT DO NOTHING`
            : `DELETE FROM indexed_app_operators WHERE chain_id = $1 AND app_address = $2 AND operator = $3`,
          [chainId, event.app, event.operator],
        );
        break;
      case 'token':
        statement(
          `INSERT INTO indexed_tokens (chain_id, address, app_address, kind, name, name_raw, symbol, symbol_raw,
             decimals, block_number)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
          [
            chainId,
            event.token,
            event.app,
            event.kind,
            event.name.text,
            event.name.raw,
            event.symbol.text,
            event.symbol.raw,
            event.decimals,
            event.blockNumber,
          ],
        );
        break;
      case 'badge':
        statement(
          `INSERT INTO indexed_badges (chain_id, address, app_address, name, name_raw, base_uri, base_uri_raw,
             block_number)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [
            chainId,
            event.badge,
            event.app,
            event.name.text,
            event.name.raw,
            event.baseUri.text,
            event.baseUri.raw,
            event.blockNumber,
          ],
        );
        // Its metadata document is fetched by a job, enqueued when this commits (unless known); a
        // base URI stored altered is not the chain's, so nothing is fetched for it.
        if (event.baseUri.raw === null)
          statement('SELECT laurel_badge_metadata_wanted($1)', [event.baseUri.text]);
        break;
      case 'tokenTransfer':
        if (event.from !== ZERO_ADDRESS) balances.add([event.token, event.from], -sign * event.value);
        if (event.to !== ZERO_ADDRESS) balances.add([event.token, event.to], sign * event.value);
        break;
      case 'badgeTransfer':
        if (event.from !== ZERO_ADDRESS) holdings.add([event.badge, event.from], -sign);
        if (event.to !== ZERO_ADDRESS) holdings.add([event.badge, event.to], sign);
        break;
      case 'reward': {
        const time = timeOf(blockTimes, event.blockNumber);
        const amount = sign * event.amount;
        rewardsFromDay = Math.min(rewardsFromDay, dayOfTime(time));
        const day = dayOf(time);
        if (event.kind === 'xp') balances.add([event.token, event.user], amount);
        dailyRewards.add([event.token, day, event.user], amount);
        totalRewards.add([event.token, event.user], amount);
        if (event.kind === 'xp') {
          dailyRewards.add([ALL_XP_TOKEN, day, event.user], amount);
          totalRewards.add([ALL_XP_TOKEN, event.user], amount);
        }
        if (undo) break;
        actions[0].push(event.app);
        actions[1].push(event.user);
        actions[2].push(event.token);
        actions[3].push(event.kind);
        actions[4].push(event.actionName);
        actions[5].push(event.amount.toString());
        actions[6].push(String(event.blockNumber));
        actions[7].push(String(time));
        actions[8].push(event.transactionHash);
        actions[9].push(String(event.logIndex));
        break;
      }
    }
  }

  if (actions[0].length > 0) {
    statement(
      `INSERT INTO completed_actions (chain_id, app_address, user_address, token_address, kind, action_name,
         amount, block_number, block_time, transaction_hash, log_index)
       SELECT $1, a, u, t, k::reward_kind, n, amt, b, to_timestamp(s), h, l
       FROM unnest($2::varchar[], $3::varchar[], $4::varchar[], $5::text[], $6::text[], $7::numeric[],
         $8::bigint[], $9::float8[], $10::varchar[], $11::int[]) AS x(a, u, t, k, n, amt, b, s, h, l)`,
      [chainId, ...actions],
    );
  }
  if (balances.size > 0) {
    statement(
      `INSERT INTO token_balances AS current (chain_id, token_address, holder, balance)
       SELECT $1, t, h, v FROM unnest($2::varchar[], $3::varchar[], $4::numeric[]) AS x(t, h, v)
       ON CONFLICT (chain_id, token_address, holder) DO UPDATE SET balance = current.balance + EXCLUDED.balance`,
      [chainId, ...balances.columns()],
    );
  }
  if (holdings.size > 0) {
    // Each badge's holder count follows the holdings that cross zero (one row per holder here, so
    // a holding's count before is its count after minus the change).
    statement(
      `WITH changes AS (SELECT * FROM unnest($2::varchar[], $3::varchar[], $4::bigint[]) AS x(b, h, c)),
       held AS (
         INSERT INTO badge_holdings AS current (chain_id, badge_address, holder, count)
         SELECT $1, b, h, c FROM changes
         ON CONFLICT (chain_id, badge_address, holder) DO UPDATE SET count = current.count + EXCLUDED.count
         RETURNING badge_address, holder, count),
       moved AS (
         SELECT held.badge_address,
                sum(CASE WHEN held.count > 0 AND held.count - changes.c <= 0 THEN 1
                         WHEN held.count <= 0 AND held.count - changes.c > 0 THEN -1 ELSE 0 END) AS delta
         FROM held JOIN changes ON changes.b = held.badge_address AND changes.h = held.holder
         GROUP BY held.badge_address)
       UPDATE indexed_badges AS badge SET holders = badge.holders + moved.delta
       FROM moved WHERE badge.chain_id = $1 AND badge.address = moved.badge_address AND moved.delta <> 0`,
      [chainId, ...holdings.columns()],
    );
  }
  if (dailyRewards.size > 0) {
    const daily = dailyRewards.columns();
    const totals = totalRewards.columns();
    statement(
      `INSERT INTO reward_daily_totals AS current (chain_id, token_address, day, user_address, amount)
       SELECT $1, t, d, u, v FROM unnest($2::varchar[], $3::date[], $4::varchar[], $5::numeric[]) AS x(t, d, u, v)
       ON CONFLICT (chain_id, token_address, day, user_address)
       DO UPDATE SET amount = current.amount + EXCLUDED.amount`,
      [chainId, ...daily],
    );
    statement(
      `INSERT INTO reward_totals AS current (chain_id, token_address, user_address, amount)
       SELECT $1, t, u, v FROM unnest($2::varchar[], $3::varchar[], $4::numeric[]) AS x(t, u, v)
       ON CONFLICT (chain_id, token_address, user_address) DO UPDATE SET amount = current.amount + EXCLUDED.amount`,
      [chainId, ...totals],
    );
    if (undo) {
      // A user whose rewards were all undone has no row in a fresh index (nor in a leaderboard).
      statement(
        `DELETE FROM reward_daily_totals WHERE chain_id = $1 AND amount = 0
           AND (token_address, day, user_address) IN (SELECT * FROM unnest($2::varchar[], $3::date[], $4::varchar[]))`,
        [chainId, ...daily.slice(0, 3)],
      );
      statement(
        `DELETE FROM reward_totals WHERE chain_id = $1 AND amount = 0
           AND (token_address, user_address) IN (SELECT * FROM unnest($2::varchar[], $3::varchar[]))`,
        [chainId, ...totals.slice(0, 2)],
      );
    }
  }
  return { chainId, events: events.length, rewardsFromDay, removes: undo, statements };
}

/** Runs the statements of `writes` with `db`. */
async function runStatements(db: ClientBase, writes: PreparedWrites): Promise<void> {
  for (const { sql, params } of writes.statements) await db.query(prepared(sql, params));
}

/**
 * Tells the read caches of every process once the transaction commits, in one notification naming
 * the earliest day any of `changes` touched (src/indexer/index-changes.ts).
 */
async function notifyWrites(db: ClientBase, changes: readonly PreparedWrites[]): Promise<void> {
  const changed = changes.filter((writes) => writes.events > 0);
  if (changed.length > 0) {
    await notifyIndexChanged(db, {
      chainId: changed[0].chainId,
      rewardsFromDay: Math.min(...changed.map((writes) => writes.rewardsFromDay)),
      removed: changed.some((writes) => writes.removes),
    });
  }
}

/**
 * Runs prepared writes (of one chain) with `db`, which must be inside a transaction, and tells the
 * read caches of every process once it commits: every write of index rows does.
 */
export async function applyIndexWrites(db: ClientBase, ...changes: PreparedWrites[]): Promise<void> {
  for (const writes of changes) await runStatements(db, writes);
  await notifyWrites(db, changes);
}

/** An event whose rows PostgreSQL refused, and its reason. */
export interface UnwritableEvent {
  event: IndexEvent;
  reason: string;
}

export interface IsolatedWrites {
  /** What was written: the events' writes less those of the unwritable ones. */
  written: PreparedWrites[];
  unwritable: UnwritableEvent[];
}

/**
 * Writes `events` (in chain order) for `chainId` with `db`, inside the caller's transaction, so that
 * an event PostgreSQL refuses fails no other: the whole batch (`whole`, prepared ahead, or prepared
 * here) is tried under a savepoint, and when refused for its data, rolled back to it and tried in
 * halves (in chain order, so sums and holder counts come out the same) down to the events refused,
 * which are returned. `before` (undone blocks) runs first, unisolated. One notification for all.
 */
export async function writeIndexEventsIsolated(
  db: ClientBase,
  chainId: number,
  events: readonly IndexEvent[],
  blockTimes: BlockTimes,
  options: { whole?: PreparedWrites; before?: readonly PreparedWrites[] } = {},
): Promise<IsolatedWrites> {
  const before = options.before ?? [];
  for (const writes of before) await runStatements(db, writes);
  const isolated: IsolatedWrites = { written: [], unwritable: [] };
  const attempt = async (part: readonly IndexEvent[], writes: PreparedWrites): Promise<void> => {
    if (writes.statements.length === 0) return;
    await db.query('SAVEPOINT laurel_index_batch');
    try {
      await runStatements(db, writes);
      await db.query('RELEASE SAVEPOINT laurel_index_batch');
      isolated.written.push(writes);
    } catch (error) {
      if (!isRefusedForItsData(error)) throw error;
      await db.query('ROLLBACK TO SAVEPOINT laurel_index_batch');
      await db.query('RELEASE SAVEPOINT laurel_index_batch');
      if (part.length === 1) {
        isolated.unwritable.push({ event: part[0], reason: `refused by the database: ${error.message}` });
        return;
      }
      const half = Math.ceil(part.length / 2);
      for (const piece of [part.slice(0, half), part.slice(half)]) {
        await attempt(piece, prepareIndexWrites(chainId, piece, blockTimes));
      }
    }
  };
  await attempt(events, options.whole ?? prepareIndexWrites(chainId, events, blockTimes));
  await notifyWrites(db, [...before, ...isolated.written]);
  return isolated;
}
