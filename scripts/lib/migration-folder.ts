import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsDirectory } from '../../src/db/migrator';

/** A migration's timestamp: now, or one second after the latest migration's when the clock is behind it. */
function nextStamp(directory: string): string {
  const stamp = (date: Date) => date.toISOString().replace(/\D/g, '').slice(0, 14);
  const latest = readdirSync(directory)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()
    .at(-1);
  const now = new Date();
  if (!latest || stamp(now) > latest.slice(0, 14)) return stamp(now);
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(latest)!;
  return stamp(new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s! + 1)));
}

/** Writes prisma/migrations/<timestamp>_<name>/migration.sql, sorted after every landed migration. */
export function writeMigration(name: string, sql: string): string {
  const directory = path.join(migrationsDirectory(), `${nextStamp(migrationsDirectory())}_${name}`);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, 'migration.sql');
  writeFileSync(file, sql);
  return file;
}
