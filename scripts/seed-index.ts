/**
 * Writes a realistic index for the read benchmarks (npm run bench:read): SEED_USERS users (100,000)
 * rewarded SEED_ACTIONS times (1,000,000) over the past year by SEED_APPS apps (10), with the
 * per-day and all-time totals, XP, credit and badge balances the indexer would have written.
 * Users and apps are skewed (a few are far more active than most), 90 % of rewards are XP.
 *
 *   npm run seed:index
 *
 * It replaces the index tables of the bench database (see scripts/bench-database.ts). Rows are
 * generated inside PostgreSQL (generate_series) in batches, with a progress bar.
 */
import { SingleBar, Presets } from 'cli-progress';
import { getAddress, keccak256, toUtf8Bytes } from 'ethers';
import { Client } from 'pg';
import { ALL_XP_TOKEN } from '../src/indexer/index-writer';
import { BENCH_CHAIN_ID, openBenchDatabase } from './bench-database';

const USERS = Number(process.env.SEED_USERS ?? 100_000);
const ACTIONS = Number(process.env.SEED_ACTIONS ?? 1_000_000);
const APPS = Number(process.env.SEED_APPS ?? 10);
const BATCH = 50_000;
const YEAR_SECONDS = 365 * 86_400;

/** A deterministic address named by `label`. */
const addressOf = (label: string) => getAddress(keccak256(toUtf8Bytes(label)).slice(0, 42));

export interface SeededIndex {
  users: string[];
  apps: { address: string; xpToken: string; creditToken: string; badge: string }[];
  /** The seconds since the epoch covered: [from, to]. */
  from: number;
  to: number;
}

export function seedPlan(): SeededIndex {
  const to = Math.floor(Date.now() / 1000);
  return {
    users: Array.from({ length: USERS }, (_, i) => addressOf(`laurel-seed-user-${i}`)),
    apps: Array.from({ length: APPS }, (_, i) => ({
      address: addressOf(`laurel-seed-app-${i}`),
      xpToken: addressOf(`laurel-seed-xp-${i}`),
      creditToken: addressOf(`laurel-seed-credit-${i}`),
      badge: addressOf(`laurel-seed-badge-${i}`),
    })),
    from: to - YEAR_SECONDS,
    to,
  };
}

async function seed(db: Client, plan: SeededIndex): Promise<void> {
  const bar = new SingleBar(
    { format: 'seed:index [{bar}] {percentage}% | {value}/{total} {unit} | {duration}s' },
    Presets.shades_classic,
  );
  const chainId = BENCH_CHAIN_ID;
  await db.query(`TRUNCATE indexed_apps, indexed_app_operators, indexed_tokens, indexed_badges, token_balances,
    badge_holdings, completed_actions, reward_daily_totals, reward_totals, indexer_receipt_logs, indexer_cursors`);

  const apps = plan.apps;
  const column = (pick: (app: SeededIndex['apps'][number]) => string) => apps.map(pick);
  await db.query(
    `INSERT INTO indexed_apps (chain_id, address, owner, name, xp_token, block_number, created_at)
     SELECT $1::int, a, $2, 'Seed app ' || i, x, 0, to_timestamp($5::float8)
     FROM unnest($3::varchar[], $4::varchar[]) WITH ORDINALITY AS t(a, x, i)`,
    [chainId, plan.users[0], column((app) => app.address), column((app) => app.xpToken), plan.from],
  );
  await db.query(
    `INSERT INTO indexed_tokens (chain_id, address, app_address, kind, name, symbol, decimals)
     SELECT $1::int, x, a, 'xp'::indexed_token_kind, 'Seed app ' || i, 'XP', 18 FROM unnest($2::varchar[], $3::varchar[]) WITH ORDINALITY AS t(a, x, i)
     UNION ALL
     SELECT $1::int, c, a, 'credit'::indexed_token_kind, 'Credit ' || i, 'CRD' || i, 6 FROM unnest($2::varchar[], $4::varchar[]) WITH ORDINALITY AS t(a, c, i)`,
    [chainId, column((app) => app.address), column((app) => app.xpToken), column((app) => app.creditToken)],
  );
  await db.query(
    `INSERT INTO indexed_badges (chain_id, address, app_address, name, base_uri, block_number)
     SELECT $1::int, b, a, 'Badge ' || i, 'ipfs://seed/' || i || '/', 0 FROM unnest($2::varchar[], $3::varchar[]) WITH ORDINALITY AS t(a, b, i)`,
    [chainId, column((app) => app.address), column((app) => app.badge)],
  );
  await db.query(`CREATE TEMP TABLE seed_users (idx int PRIMARY KEY, address varchar(42))`);
  await db.query(
    `INSERT INTO seed_users SELECT i - 1, a FROM unnest($1::varchar[]) WITH ORDINALITY AS t(a, i)`,
    [plan.users],
  );

  bar.start(ACTIONS, 0, { unit: 'actions' });
  await db.query('SELECT setseed(0.42)');
  for (let first = 1; first <= ACTIONS; first += BATCH) {
    const last = Math.min(ACTIONS, first + BATCH - 1);
    // Skewed picks: power(random(), k) favours low user and app numbers.
    await db.query(
      `WITH r AS (
         SELECT g, floor(power(random(), 2) * $4)::int AS u, floor(power(random(), 1.5) * $5)::int + 1 AS a,
                random() AS k, random() AS n, random() AS x
         FROM generate_series($2::int, $3::int) AS g)
       INSERT INTO completed_actions (chain_id, app_address, user_address, token_address, kind, action_name, amount,
         block_number, block_time, transaction_hash, log_index)
       SELECT $1::int, ($6::varchar[])[r.a], su.address,
              CASE WHEN r.k < 0.9 THEN ($7::varchar[])[r.a] ELSE ($8::varchar[])[r.a] END,
              CASE WHEN r.k < 0.9 THEN 'xp' ELSE 'badge' END::reward_kind,
              (ARRAY['daily-login', 'quest', 'referral', 'first-win', 'streak', 'share', 'review', 'invite'])[1 + floor(r.n * 8)::int],
              CASE WHEN r.k < 0.9 THEN (1 + floor(r.x * 100))::numeric * 1000000000000000000 ELSE 1 END,
              r.g, to_timestamp($9::float8 + r.g * $10::float8), '0x' || lpad(to_hex(r.g), 64, '0'), 0
       FROM r JOIN seed_users su ON su.idx = r.u`,
      [
        chainId,
        first,
        last,
        USERS,
        APPS,
        column((app) => app.address),
        column((app) => app.xpToken),
        column((app) => app.badge),
        plan.from,
        YEAR_SECONDS / ACTIONS,
      ],
    );
    bar.update(last);
  }
  bar.stop();

  const steps: [string, string][] = [
    [
      'per-day totals',
      `INSERT INTO reward_daily_totals (chain_id, token_address, day, user_address, amount)
       SELECT chain_id, token_address, (block_time AT TIME ZONE 'UTC')::date, user_address, sum(amount)
       FROM completed_actions GROUP BY 1, 2, 3, 4
       UNION ALL
       SELECT chain_id, '${ALL_XP_TOKEN}', (block_time AT TIME ZONE 'UTC')::date, user_address, sum(amount)
       FROM completed_actions WHERE kind = 'xp' GROUP BY 1, 2, 3, 4`,
    ],
    [
      'all-time totals',
      `INSERT INTO reward_totals (chain_id, token_address, user_address, amount)
       SELECT chain_id, token_address, user_address, sum(amount) FROM reward_daily_totals GROUP BY 1, 2, 3`,
    ],
    [
      'XP balances',
      `INSERT INTO token_balances (chain_id, token_address, holder, balance)
       SELECT chain_id, token_address, user_address, amount FROM reward_totals
       WHERE token_address IN (SELECT address FROM indexed_tokens WHERE kind = 'xp')`,
    ],
    [
      'credit balances',
      `INSERT INTO token_balances (chain_id, token_address, holder, balance)
       SELECT ${chainId}, t.address, s.address, (1 + (s.idx % 997)) * 1000000
       FROM seed_users s JOIN indexed_tokens t ON t.kind = 'credit' AND (s.idx + length(t.name)) % 5 = 0`,
    ],
    [
      'badge holdings',
      `INSERT INTO badge_holdings (chain_id, badge_address, holder, count)
       SELECT chain_id, token_address, user_address, sum(amount)::bigint FROM completed_actions
       WHERE kind = 'badge' GROUP BY 1, 2, 3`,
    ],
    [
      'badge holder counts',
      `UPDATE indexed_badges b SET holders = h.n
       FROM (SELECT chain_id, badge_address, count(*)::int AS n FROM badge_holdings GROUP BY 1, 2) h
       WHERE b.chain_id = h.chain_id AND b.address = h.badge_address`,
    ],
    // VACUUM also marks the pages all-visible: profiles read their actions from an index alone.
    ['statistics', 'VACUUM ANALYZE'],
  ];
  bar.start(steps.length, 0, { unit: 'steps' });
  for (const [index, [, sql]] of steps.entries()) {
    await db.query(sql);
    bar.update(index + 1);
  }
  bar.stop();
}

async function main(): Promise<void> {
  const started = Date.now();
  const database = await openBenchDatabase();
  const db = new Client({ connectionString: database.databaseUrl });
  await db.connect();
  try {
    await seed(db, seedPlan());
    const { rows } = await db.query<{ actions: string; users: string; daily: string }>(
      `SELECT (SELECT count(*) FROM completed_actions) AS actions,
              (SELECT count(DISTINCT user_address) FROM reward_totals) AS users,
              (SELECT count(*) FROM reward_daily_totals) AS daily`,
    );
    console.log(
      `seed:index ${rows[0].actions} actions of ${rows[0].users} users by ${APPS} apps (${rows[0].daily} per-day totals) ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s, database ${new URL(database.databaseUrl).host}`,
    );
  } finally {
    await db.end();
    await database.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error('seed:index failed:', error);
    process.exitCode = 1;
  });
}
