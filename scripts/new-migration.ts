/**
 * Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that takes the tables of the
 * committed prisma/schema.prisma (or --from FILE) to the working copy's, computed by Prisma's own
 * schema engine (scripts/prisma-diff.mjs). Usage: npm run db:migration -- <name> [--from FILE]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../src/embedded/postgres';
import { migrationsDirectory } from '../src/db/migrator';
import { writeMigration } from './lib/migration-folder';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { from: { type: 'string' } },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error('usage: npm run db:migration -- <snake_case_name> [--from old-schema.prisma]');
    process.exit(2);
  }
  const root = path.dirname(path.dirname(migrationsDirectory()));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-migration-'));
  chmodSync(scratch, 0o755);
  let from = values.from;
  if (!from) {
    from = path.join(scratch, 'committed.prisma');
    const committed = spawnSync('git', ['show', 'HEAD:prisma/schema.prisma'], {
      cwd: root,
      encoding: 'utf8',
    });
    // No committed schema yet: the first migration starts from an empty database.
    if (committed.status === 0) writeFileSync(from, committed.stdout);
    else from = undefined;
  }
  // The engine insists on a reachable database even for a datamodel-to-datamodel diff.
  const server = process.env.DATABASE_URL
    ? null
    : await startEmbeddedPostgres({ dataDir: scratch, database: 'scratch', persistent: false });
  try {
    const sql = execFileSync(
      process.execPath,
      [
        '--experimental-wasm-modules',
        '--no-warnings',
        path.join(root, 'scripts/prisma-diff.mjs'),
        '--to',
        path.join(root, 'prisma/schema.prisma'),
        ...(from ? ['--from', from] : []),
      ],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? server!.databaseUrl },
      },
    );
    if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
      console.log('prisma/schema.prisma matches the committed schema: no migration written');
      return;
    }
    console.log(`wrote ${path.relative(root, writeMigration(name, sql))}`);
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
