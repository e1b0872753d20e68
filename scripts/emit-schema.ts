/**
 * Writes schema.graphql, the emitted GraphQL schema, from the resolver list, and the client package's
 * subscription types generated from it. `npm run schema:emit`
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildGraphQLSchema, printSortedSchema } from '../src/graphql/schema';
import { migrationsDirectory } from '../src/db/migrator';
import { resolverClasses } from '../src/modules';
import { CLIENT_GRAPHQL_TYPES_FILE, clientGraphQLTypesText } from './lib/client-graphql-types';

async function main(): Promise<void> {
  const root = path.dirname(path.dirname(migrationsDirectory()));
  const sdl = printSortedSchema(await buildGraphQLSchema(resolverClasses));
  // schema.graphql, and the client's types of its subscriptions.
  for (const [file, content] of [
    [path.join(root, 'schema.graphql'), sdl],
    [path.join(root, CLIENT_GRAPHQL_TYPES_FILE), clientGraphQLTypesText(sdl)],
  ]) {
    writeFileSync(file, content);
    console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
