/**
 * Writes a realistic index for the read benchmarks (npm run bench:read): SEED_USERS users (100,000
 * × scale) rewarded SEED_ACTIONS times (1,000,000 × scale) over the past year by SEED_APPS apps
 * (10), with the per-day and all-time totals, XP, credit and badge balances the indexer would have
 * written. Users and apps are skewed (a few are far more active than most), 90 % of rewards are XP.
 *
 *   npm run seed:index                 # 1,000,000 completed actions, 100,000 users
 *   npm run seed:index -- --scale 10   # 10,000,000 completed actions, 1,000,000 users
 *
 * It replaces the index tables of the bench database (see scripts/bench-database.ts), and records
 * what it wrote in `seed_index_plan` (bench:read asks the same users and apps). How, fast:
 * - the seeded tables' indexes and key constraints are dropped first and built once the rows are
 *   in (one sort per index instead of 10 million random inserts into each of them), two at a time,
 *   each with PostgreSQL's parallel workers; their definitions are kept in `seed_index_definitions`
 *   until they are back, so a run that dies half-way restores them on the next run;
 * - the users' addresses (checksummed: keccak, so made here) go in with one COPY FROM STDIN
 *   (pg-copy-streams);
 * - the completed actions are generated inside PostgreSQL (generate_series, random()), in batches
 *   of SEED_BATCH (250,000) by SEED_WORKERS (2) connections at once; each batch seeds random() with
 *   its own number, so the index is the same whatever the order batches ran in;
 * - the totals are sums of the actions (GROUP BY, with parallel workers), independent ones on two
 *   connections at once; commits do not wait for the disk.
 */
import { SingleBar, Presets } from 'cli-progress';
import { getAddress, keccak256, toUtf8Bytes } from 'ethers';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { ALL_XP_TOKEN } from '../src/indexer/index-writer';
import { BENCH_CHAIN_ID, openBenchDatabase } from './bench-database';
import { envInt } from './lib/env';

const YEAR_SECONDS = 365 * 86_400;
/** The tables written here whose indexes are built after their rows. */
const BULK_TABLES = [
  'completed_actions',
  'reward_daily_totals',
  'reward_totals',
  'token_balances',
  'badge_holdings',
];

/** `--scale N` on the command line (default 1): N × the default users and actions. */
export function seedScale(argv = process.argv): number {
  const at = argv.indexOf('--scale');
  if (at < 0) return 1;
  const scale = Number(argv[at + 1]);
  if (!Number.isInteger(scale) || scale < 1 || scale > 100)
    throw new Error('--scale must be an integer from 1 to 100');
  return scale;
}

/** A deterministic address named by `label`. */
const addressOf = (label: string) => getAddress(keccak256(toUtf8Bytes(label)).slice(0, 42));

export interface SeededIndex {
  users: string[];
  apps: { address: string; xpToken: string; creditToken: string; badge: string }[];
  /** The seconds since the epoch covered: [from, to]. */
  from: number;
  to: number;
}

/** The index a seed of `users` users and `apps` apps ending at `to` writes. */
export function seedPlan(users: number, apps: number, to = Math.floor(Date.now() / 1000)): SeededIndex {
  return {
    users: Array.from({ length: users }, (_, i) => addressOf(`laurel-seed-user-${i}`)),
    apps: Array.from({ length: apps }, (_, i) => ({
      address: addressOf(`laurel-seed-app-${i}`),
      xpToken: addressOf(`laurel-seed-xp-${i}`),
      creditToken: addressOf(`laurel-seed-credit-${i}`),
      badge: addressOf(`laurel-seed-badge-${i}`),
    })),
    from: to - YEAR_SECONDS,
    to,
  };
}

/** The plan of the index in the bench database (null: never seeded). */
export async function seededPlan(db: Client): Promise<SeededIndex | null> {
  const exists = await db.query(`SELECT to_regclass('seed_index_plan') IS NOT NULL AS found`);
  if (!exists.rows[0].found) return null;
  const { rows } = await db.query<{ users: number; apps: number; to_time: string }>(
    'SELECT users, apps, to_time::text FROM seed_index_plan',
  );
  return rows[0] ? seedPlan(rows[0].users, rows[0].apps, Number(rows[0].to_time)) : null;
}

async function connect(url: string): Promise<Client> {
  const db = new Client({ connectionString: url });
  await db.connect();
  // A bulk load: big sorts and hashes in memory, and no wait for the disk at commits.
  await db.query(`SET maintenance_work_mem = '1GB'; SET work_mem = '256MB'; SET synchronous_commit = off`);
  return db;
}

/**
 * Drops the indexes and key constraints of BULK_TABLES, keeping their definitions in
 * seed_index_definitions (unless a run that died left some there already: those are the ones
 * still to rebuild).
 */
async function dropIndexes(db: Client): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS seed_index_definitions (
    table_name text, index_name text, constraint_name text, definition text, size_hint bigint)`);
  await db.query(
    `INSERT INTO seed_index_definitions
     SELECT t.relname, i.relname, con.conname,
            CASE WHEN con.conname IS NULL THEN pg_get_indexdef(i.oid) ELSE pg_get_constraintdef(con.oid) END,
            pg_relation_size(i.oid)
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     LEFT JOIN pg_constraint con ON con.conindid = i.oid AND con.contype IN ('p', 'u')
     WHERE t.relnamespace = 'public'::regnamespace AND t.relname = ANY($1)`,
    [BULK_TABLES],
  );
  const { rows } = await db.query<{ table_name: string; index_name: string; constraint_name: string | null }>(
    `SELECT DISTINCT table_name, index_name, constraint_name FROM seed_index_definitions`,
  );
  for (const row of rows) {
    await db.query(
      row.constraint_name
        ? `ALTER TABLE "${row.table_name}" DROP CONSTRAINT IF EXISTS "${row.constraint_name}"`
        : `DROP INDEX IF EXISTS "${row.index_name}"`,
    );
  }
}

/** Builds the indexes dropped by dropIndexes, largest first, `connections` at a time. */
async function buildIndexes(connections: Client[], progress: () => void): Promise<void> {
  const { rows } = await connections[0].query<{
    table_name: string;
    index_name: string;
    constraint_name: string | null;
    definition: string;
  }>(
    `SELECT DISTINCT ON (index_name) table_name, index_name, constraint_name, definition
     FROM seed_index_definitions ORDER BY index_name, size_hint DESC`,
  );
  const statements = rows.map((row) =>
    row.constraint_name
      ? `ALTER TABLE "${row.table_name}" ADD CONSTRAINT "${row.constraint_name}" ${row.definition}`
      : row.definition,
  );
  await inParallel(connections, statements, progress);
  await connections[0].query('DROP TABLE seed_index_definitions');
}

/** Runs `statements` on `connections`, each taking the next statement when its last one is done. */
async function inParallel(connections: Client[], statements: string[], progress: () => void): Promise<void> {
  let next = 0;
  await Promise.all(
    connections.map(async (db) => {
      while (next < statements.length) {
        await db.query(statements[next++]);
        progress();
      }
    }),
  );
}

async function seed(
  url: string,
  plan: SeededIndex,
  actions: number,
  workers: number,
  batch: number,
): Promise<string[]> {
  // How long each part took, for the summary line.
  const laps: string[] = [];
  let lapStarted = Date.now();
  const lap = (name: string) => {
    laps.push(`${name} ${((Date.now() - lapStarted) / 1000).toFixed(0)} s`);
    lapStarted = Date.now();
  };
  const bar = new SingleBar(
    { format: 'seed:index [{bar}] {percentage}% | {value}/{total} {unit} | {duration}s {step}' },
    Presets.shades_classic,
  );
  const connections = await Promise.all(Array.from({ length: workers }, () => connect(url)));
  const [db] = connections;
  try {
    const chainId = BENCH_CHAIN_ID;
    const apps = plan.apps;
    const users = plan.users.length;
    const column = (pick: (app: SeededIndex['apps'][number]) => string) => apps.map(pick);
    await db.query(`TRUNCATE indexed_apps, indexed_app_operators, indexed_tokens, indexed_badges, badge_metadata, token_balances,
      badge_holdings, completed_actions, reward_daily_totals, reward_totals, indexer_receipt_logs, indexer_cursors`);
    await dropIndexes(db);
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
    // Each badge's metadata document, as the badge_metadata__fetch job would have stored it.
    await db.query(
      `INSERT INTO badge_metadata (uri, document, fetched_at, attempted_at)
       SELECT 'ipfs://seed/' || i || '/', json_build_object('name', 'Badge ' || i,
         'description', 'Awarded by seed app ' || i, 'image', 'ipfs://seed-images/' || i || '.png',
         'attributes', json_build_array(json_build_object('trait_type', 'tier', 'value', i))), now(), now()
       FROM generate_series(1, $1::int) AS i`,
      [apps.length],
    );
    // Seen by every connection (not a temporary table); not WAL-logged, dropped at the end.
    await db.query(`DROP TABLE IF EXISTS seed_users;
      CREATE UNLOGGED TABLE seed_users (idx int PRIMARY KEY, address varchar(42));
      DROP TABLE IF EXISTS seed_index_plan`);
    await pipeline(
      Readable.from(
        (function* () {
          for (let i = 0; i < users; i += 1) yield `${i}\t${plan.users[i]}\n`;
        })(),
      ),
      db.query(copyFrom('COPY seed_users (idx, address) FROM STDIN')),
    );
    await db.query('ANALYZE seed_users');
    lap('users and apps');

    bar.start(actions, 0, { unit: 'actions', step: '' });
    const batches = Array.from({ length: Math.ceil(actions / batch) }, (_, i) => i);
    const appColumns = [
      column((app) => app.address),
      column((app) => app.xpToken),
      column((app) => app.badge),
    ];
    let done = 0;
    let nextBatch = 0;
    await Promise.all(
      connections.map(async (worker) => {
        while (nextBatch < batches.length) {
          const index = batches[nextBatch++];
          const first = index * batch + 1;
          const last = Math.min(actions, first + batch - 1);
          // Skewed picks: power(random(), k) favours low user and app numbers.
          await worker.query(`SELECT setseed($1)`, [((index % 2_000_000) / 2_000_000) * 2 - 1]);
          await worker.query(
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
            [chainId, first, last, users, apps.length, ...appColumns, plan.from, YEAR_SECONDS / actions],
          );
          done += last - first + 1;
          bar.update(done);
        }
      }),
    );
    bar.stop();
    lap('actions');

    const steps: { name: string; sql: string[] }[] = [
      {
        name: 'per-day totals; badge holdings, credit balances',
        sql: [
          `INSERT INTO reward_daily_totals (chain_id, token_address, day, user_address, amount)
           SELECT chain_id, token_address, (block_time AT TIME ZONE 'UTC')::date, user_address, sum(amount)
           FROM completed_actions GROUP BY 1, 2, 3, 4
           UNION ALL
           SELECT chain_id, '${ALL_XP_TOKEN}', (block_time AT TIME ZONE 'UTC')::date, user_address, sum(amount)
           FROM completed_actions WHERE kind = 'xp' GROUP BY 1, 2, 3, 4`,
          `INSERT INTO badge_holdings (chain_id, badge_address, holder, count)
           SELECT chain_id, token_address, user_address, sum(amount)::bigint FROM completed_actions
           WHERE kind = 'badge' GROUP BY 1, 2, 3`,
          `INSERT INTO token_balances (chain_id, token_address, holder, balance)
           SELECT ${chainId}, t.address, s.address, (1 + (s.idx % 997)) * 1000000
           FROM seed_users s JOIN indexed_tokens t ON t.kind = 'credit' AND (s.idx + length(t.name)) % 5 = 0`,
        ],
      },
      {
        name: 'all-time totals; badge holder counts',
        sql: [
          `INSERT INTO reward_totals (chain_id, token_address, user_address, amount)
           SELECT chain_id, token_address, user_address, sum(amount) FROM reward_daily_totals GROUP BY 1, 2, 3`,
          `UPDATE indexed_badges b SET holders = h.n
           FROM (SELECT chain_id, badge_address, count(*)::int AS n FROM badge_holdings GROUP BY 1, 2) h
           WHERE b.chain_id = h.chain_id AND b.address = h.badge_address`,
        ],
      },
      {
        name: 'XP balances',
        sql: [
          `INSERT INTO token_balances (chain_id, token_address, holder, balance)
           SELECT chain_id, token_address, user_address, amount FROM reward_totals
           WHERE token_address IN (SELECT address FROM indexed_tokens WHERE kind = 'xp')`,
        ],
      },
    ];
    const indexCount = Number(
      (await db.query<{ n: string }>('SELECT count(DISTINCT index_name) AS n FROM seed_index_definitions'))
        .rows[0].n,
    );
    const statements =
      steps.reduce((sum, step) => sum + step.sql.length, 0) + indexCount + BULK_TABLES.length;
    let finished = 0;
    const progress = () => bar.update(++finished);
    bar.start(statements, 0, { unit: 'statements', step: '' });
    for (const step of steps) {
      bar.update(finished, { step: step.name });
      await inParallel(connections, step.sql, progress);
    }
    lap('totals');
    bar.update(finished, { step: 'indexes' });
    await buildIndexes(connections, progress);
    lap('indexes');
    // VACUUM also marks the pages all-visible: profiles read their actions from an index alone.
    bar.update(finished, { step: 'vacuum, statistics' });
    await inParallel(
      connections,
      BULK_TABLES.map((table) => `VACUUM (ANALYZE) ${table}`),
      progress,
    );
    bar.stop();
    lap('vacuum and statistics');
    await db.query('VACUUM ANALYZE indexed_apps, indexed_tokens, indexed_badges');
    await db.query(
      'DROP TABLE seed_users; CREATE TABLE seed_index_plan (users int, apps int, to_time bigint)',
    );
    await db.query(`INSERT INTO seed_index_plan VALUES ($1, $2, $3)`, [users, apps.length, plan.to]);
    return laps;
  } finally {
    bar.stop();
    await Promise.all(connections.map((connection) => connection.end()));
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const scale = seedScale();
  const users = envInt('SEED_USERS', 100_000 * scale, 100_000_000);
  const actions = envInt('SEED_ACTIONS', 1_000_000 * scale, 1_000_000_000);
  const apps = envInt('SEED_APPS', 10, 1_000);
  const database = await openBenchDatabase();
  try {
    const plan = seedPlan(users, apps);
    const laps = await seed(
      database.databaseUrl,
      plan,
      actions,
      envInt('SEED_WORKERS', 2, 64),
      envInt('SEED_BATCH', 250_000, 10_000_000),
    );
    const db = await connect(database.databaseUrl);
    const { rows } = await db.query<{ actions: string; users: string; daily: string; size: string }>(
      `SELECT (SELECT count(*) FROM completed_actions) AS actions,
              (SELECT count(DISTINCT user_address) FROM reward_totals) AS users,
              (SELECT count(*) FROM reward_daily_totals) AS daily,
              pg_size_pretty(pg_database_size(current_database())) AS size`,
    );
    const sizes = await db.query<{ table: string; rows: string; size: string }>(
      `SELECT c.relname AS table, c.reltuples::bigint::text AS rows, pg_size_pretty(pg_total_relation_size(c.oid)) AS size
       FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1)
       ORDER BY pg_total_relation_size(c.oid) DESC`,
      [BULK_TABLES],
    );
    await db.end();
    console.log(
      `seed:index ${rows[0].actions} actions of ${rows[0].users} users by ${apps} apps (${rows[0].daily} per-day totals) ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s, database ${new URL(database.databaseUrl).host} (${rows[0].size})`,
    );
    console.log(`  ${laps.join(', ')}`);
    for (const table of sizes.rows)
      console.log(`  ${table.table.padEnd(20)} ${table.rows.padStart(11)} rows  ${table.size}`);
  } finally {
    await database.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error('seed:index failed:', error);
    process.exitCode = 1;
  });
}
