// Prints the SQL that takes the database of one Prisma datamodel to another, with Prisma's own
// schema engine (WebAssembly build: the native engine cannot be downloaded here).
//   node --experimental-wasm-modules scripts/prisma-diff.mjs --to prisma/schema.prisma [--from old.prisma]
// Without --from the diff starts from an empty database. The engine wants a reachable database
// (DATABASE_URL) even though a datamodel diff reads nothing from it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { SchemaEngine } from '@prisma/schema-engine-wasm';

const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' } } });
if (!values.to) {
  console.error('usage: prisma-diff.mjs --to <schema.prisma> [--from <old schema.prisma>]');
  process.exit(2);
}

const datamodel = (file) => ({
  tag: 'schemaDatamodel',
  files: [{ path: file, content: readFileSync(file, 'utf8') }],
});
const adapter = bindMigrationAwareSqlAdapterFactory(
  new PrismaPg({ connectionString: process.env.DATABASE_URL }),
);
const engine = await SchemaEngine.new({ datamodels: undefined }, () => {}, adapter);
const result = await engine.diff({
  from: values.from ? datamodel(values.from) : { tag: 'empty' },
  to: datamodel(values.to),
  script: true,
  exitCode: null,
  filters: { externalTables: [], externalEnums: [] },
});
process.stdout.write(result.stdout ?? '');
