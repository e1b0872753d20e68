/** Writes schema.graphql, the emitted GraphQL schema, from the resolver list. `npm run schema:emit` */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildGraphQLSchema, printSortedSchema } from '../src/graphql/schema';
import { migrationsDirectory } from '../src/db/migrator';
import { resolverClasses } from '../src/modules';

async function main(): Promise<void> {
  const root = path.dirname(path.dirname(migrationsDirectory()));
  const file = path.join(root, 'schema.graphql');
  writeFileSync(file, printSortedSchema(await buildGraphQLSchema(resolverClasses)));
  console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
