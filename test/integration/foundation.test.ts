import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildGraphQLSchema, printSortedSchema } from '../../src/graphql/schema';
import { resolverClasses } from '../../src/modules';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

let laurel: TestLaurel;

beforeAll(async () => {
  laurel = await startTestLaurel();
});
afterAll(async () => {
  await laurel?.stop();
});

describe('HTTP foundation', () => {
  it('answers /health and /ready', async () => {
    expect(await request(laurel.url, 'GET', '/health')).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    });
    const ready = await request(laurel.url, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: { ok: true }, chains: [], indexer: [] },
    });
  });

  it('answers GraphQL', async () => {
    const result = await graphql(laurel.url, '{ __typename }');
    expect(result).toMatchObject({ status: 200, body: { data: { __typename: 'Query' } } });
  });

  it('serves the GraphQL Playground and its assets without a CDN', async () => {
    const page = await fetch(`${laurel.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('GraphiQL.createFetcher');
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/);
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual([
      '/graphql/assets/graphiql.css',
      '/graphql/assets/react.js',
      '/graphql/assets/react-dom.js',
      '/graphql/assets/graphiql.js',
      '/graphql/assets/graphql-ws.js',
    ]);
    for (const asset of assets) {
      const answer = await fetch(`${laurel.url}${asset}`);
      expect(answer.status).toBe(200);
      expect((await answer.text()).length).toBeGreaterThan(1_000);
    }
  });

  it('answers unknown routes with 404 JSON', async () => {
    expect(await request(laurel.url, 'GET', '/nope')).toEqual(
      expect.objectContaining({ status: 404, body: { status: 'failed', error: 'Not found: GET /nope' } }),
    );
  });

  it('answers a malformed JSON body with 400 in Shape C', async () => {
    const result = await request(laurel.url, 'POST', '/key/challenge', { rawBody: '{"public_address": ' });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: {
        issues: [{ code: 'invalid_json', path: [], message: expect.stringMatching(/^Malformed JSON body/) }],
      },
    });
  });

  it('sends a request id back, taking a sane incoming one', async () => {
    const own = await request(laurel.url, 'GET', '/health', { headers: { 'X-Request-Id': 'trace-42' } });
    expect(own.headers.get('x-request-id')).toBe('trace-42');
    const generated = await request(laurel.url, 'GET', '/health', {
      headers: { 'X-Request-Id': 'not a valid id!' },
    });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('requires an API key on /v1 and /api/v1', async () => {
    for (const prefix of ['/v1', '/api/v1']) {
      const result = await request(laurel.url, 'GET', `${prefix}/chains`);
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ status: 'failed', error: expect.stringMatching(/API key/) });
    }
  });
});

describe('schema.graphql', () => {
  it('is the emitted schema (run `npm run schema:emit` after changing resolvers)', async () => {
    const committed = readFileSync(path.resolve(__dirname, '../../schema.graphql'), 'utf8');
    expect(printSortedSchema(await buildGraphQLSchema(resolverClasses))).toBe(committed);
  });
});
