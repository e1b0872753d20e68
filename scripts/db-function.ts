/**
 * Writes a migration that installs the current text of SQL functions: each function's one
 * definition is prisma/functions/<name>.sql (CREATE OR REPLACE, every form of the name), and the
 * migration carries that text verbatim, so the migrations folder alone makes the database (for
 * Laurel's migrator and `prisma migrate deploy` alike).
 * Usage: npm run db:function -- <function>... [--name <migration_name>] | --all --name <migration_name>
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrationsDirectory } from '../src/db/migrator';
import { writeMigration } from './lib/migration-folder';

export interface FunctionFile {
  name: string;
  sql: string;
}

export function functionsDirectory(): string {
  return path.join(path.dirname(migrationsDirectory()), 'functions');
}

export function readFunctionFiles(directory = functionsDirectory()): FunctionFile[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.sql'.length),
      sql: readFileSync(path.join(directory, file), 'utf8'),
    }));
}

const FUNCTION_STATEMENT =
  /\b(CREATE\s+(?:OR\s+REPLACE\s+)?|ALTER\s+|DROP\s+)(?:FUNCTION|PROCEDURE)\s+(?:IF\s+EXISTS\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_$]*)"?\s*\(/gi;

/** The functions a SQL text creates, replaces, alters or drops, with the statement's verb. */
export function functionStatements(sql: string): { verb: string; name: string }[] {
  return [...sql.matchAll(FUNCTION_STATEMENT)].map((match) => ({
    verb: match[1]!.replace(/\s+/g, ' ').trim().toUpperCase(),
    name: match[2]!.toLowerCase(),
  }));
}

/** The migration text installing these files, in the order given. */
export function functionMigration(files: FunctionFile[]): string {
  const header =
    '-- Written by npm run db:function from the current definitions of these SQL functions (change a\n' +
    '-- function in its file, then write a new migration from it):\n' +
    files.map((file) => `--   prisma/functions/${file.name}.sql\n`).join('');
  return [header, ...files.map((file) => file.sql.trimEnd() + '\n')].join('\n');
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { all: { type: 'boolean' }, name: { type: 'string' } },
    allowPositionals: true,
  });
  const files = readFunctionFiles();
  const chosen = values.all
    ? files
    : positionals.map((name) => {
        const file = files.find((candidate) => candidate.name === name);
        if (!file) throw new Error(`prisma/functions/${name}.sql does not exist`);
        return file;
      });
  const migrationName = values.name ?? (chosen.length === 1 ? `function_${chosen[0]!.name}` : undefined);
  if (chosen.length === 0 || !migrationName || !/^[a-z0-9_]+$/.test(migrationName)) {
    console.error(
      'usage: npm run db:function -- <function>... [--name <snake_case_name>]  (several functions, or --all, need --name)',
    );
    process.exit(2);
  }
  const root = path.dirname(path.dirname(functionsDirectory()));
  console.log(`wrote ${path.relative(root, writeMigration(migrationName, functionMigration(chosen)))}`);
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
