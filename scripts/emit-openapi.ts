/**
 * Writes openapi.json, the REST API's OpenAPI 3.1 document, from the module registry, as the
 * default setup serves it (one chain: the embedded `local`). `npm run openapi:emit`
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsDirectory } from '../src/db/migrator';
import { buildGraphQLSchema } from '../src/graphql/schema';
import { buildOpenApiDocument } from '../src/http/openapi';
import { laurelModules, resolverClasses } from '../src/modules';
import { LAUREL_VERSION } from '../src/version';

/** The chains of the default setup (no CHAINS: the embedded `local` anvil). */
export const DEFAULT_CHAINS = ['local'];

export async function openApiText(): Promise<string> {
  const document = buildOpenApiDocument(
    laurelModules,
    await buildGraphQLSchema(resolverClasses),
    LAUREL_VERSION,
    DEFAULT_CHAINS,
  );
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (require.main === module) {
  openApiText()
    .then((text) => {
      const file = path.join(path.dirname(path.dirname(migrationsDirectory())), 'openapi.json');
      writeFileSync(file, text);
      console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
