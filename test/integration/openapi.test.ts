import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openApiText } from '../../scripts/emit-openapi';
import { operationOf } from '../../src/operations/operation';
import { inputShape } from '../../src/operations/graphql-args';
import { laurelModules } from '../../src/modules';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

type Json = Record<string, unknown>;
const root = path.resolve(__dirname, '../..');
const committed = () => JSON.parse(readFileSync(path.join(root, 'openapi.json'), 'utf8')) as Json;

const documentedPath = (base: 'auth' | 'api', routePath: string) =>
  `${base === 'api' ? '/v1' : ''}${routePath.replace(/:(\w+)/g, '{$1}')}`;

describe('the OpenAPI document', () => {
  let laurel: TestLaurel;
  beforeAll(async () => {
    laurel = await startTestLaurel({ chain: true, worker: false });
  });
  afterAll(async () => {
    await laurel?.stop();
  });

  it('openapi.json is up to date (else run `npm run openapi:emit`)', async () => {
    expect(readFileSync(path.join(root, 'openapi.json'), 'utf8')).toBe(await openApiText());
  });

  it('is served at /openapi.json, the same as the checked-in file', async () => {
    const served = await request(laurel.url, 'GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(committed());
  });

  it('has every mounted route, and every documented route is mounted', async () => {
    const paths = committed().paths as Record<string, Record<string, Json>>;
    const documented = Object.entries(paths).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m} ${p}`),
    );
    const mounted = laurelModules.flatMap((module) =>
      module.routes.map((route) => `${route.method} ${documentedPath(route.base, route.path)}`),
    );
    expect(documented.sort()).toEqual(mounted.sort());
    for (const module of laurelModules) {
      for (const route of module.routes) {
        const url = (route.base === 'api' ? '/v1' : '') + route.path.replace(/:(\w+)/g, 'x');
        const answer = await request(laurel.url, route.method.toUpperCase(), url, {
          body: route.method === 'get' ? undefined : {},
        });
        // Mounted: refused for the key or the body, never "no such path".
        expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({
          route: `${route.method} ${route.path}`,
          status: route.base === 'api' ? 401 : 400,
        });
      }
    }
  });

  it('documents the API key, and only the key-issuing paths go without it', () => {
    const document = committed();
    expect((document.components as Json).securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-KEY' }),
    });
    const paths = document.paths as Record<string, Record<string, { security: unknown[] }>>;
    for (const [p, methods] of Object.entries(paths)) {
      for (const operation of Object.values(methods)) {
        expect({ p, open: operation.security.length === 0 }).toEqual({ p, open: p.startsWith('/key/') });
      }
    }
  });

  it('every example validates against the field it illustrates', () => {
    let checked = 0;
    for (const module of laurelModules) {
      for (const route of module.routes) {
        const shape = inputShape(operationOf(module.resolverClass, route.operation).input);
        const operation = (committed().paths as Record<string, Record<string, Json>>)[
          documentedPath(route.base, route.path)
        ][route.method];
        const body = (operation.requestBody as Json | undefined)?.content as
          Record<string, { schema: { properties: Record<string, Json> } }> | undefined;
        const properties = {
          ...body?.['application/json'].schema.properties,
          ...Object.fromEntries(
            ((operation.parameters as { name: string; schema: Json }[] | undefined) ?? []).map(
              (parameter) => [parameter.name, parameter.schema],
            ),
          ),
        };
        for (const [field, schema] of Object.entries(properties)) {
          if (!('example' in schema)) continue;
          const example = schema.example;
          // Query parameters arrive as strings; bodies as JSON.
          const parsed = shape[field].safeParse(example);
          expect({ route: route.path, field, example, ok: parsed.success }).toEqual({
            route: route.path,
            field,
            example,
            ok: true,
          });
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('renders the reference at /docs from assets Laurel serves itself', async () => {
    const page = await fetch(`${laurel.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/openapi.json');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/assets/')).toBe(true);
      expect((await fetch(`${laurel.url}${asset}`)).status).toBe(200);
    }
  });
});
