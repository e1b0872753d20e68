/**
 * Writes openapi.json, the REST API's OpenAPI 3.1 document, from the module registry, as the
 * default setup serves it (one chain: the embedded `local`), and the client package's types
 * generated from it (packages/client/src/generated/openapi.ts). `npm run openapi:emit`
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

/** Where the client package keeps the types generated from openapi.json. */
export const CLIENT_TYPES_FILE = path.join('packages', 'client', 'src', 'generated', 'openapi.ts');

/**
 * The client's request and answer types, generated from the document by openapi-typescript (which
 * also validates it: an operationId used twice, a dangling $ref are refused here).
 */
export async function clientTypesText(documentText: string): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const types = astToString(await openapiTS(documentText, { silent: true }));
  return `// Generated from openapi.json by \`npm run openapi:emit\` (openapi-typescript): do not edit.\n\n${types}`;
}

if (require.main === module) {
  openApiText()
    .then(async (text) => {
      const root = path.dirname(path.dirname(migrationsDirectory()));
      for (const [file, content] of [
        [path.join(root, 'openapi.json'), text],
        [path.join(root, CLIENT_TYPES_FILE), await clientTypesText(text)],
      ]) {
        writeFileSync(file, content);
        console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
      }
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
