import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Wallet } from 'ethers';
import { CLIENT_TYPES_FILE, clientTypesText, openApiText } from '../../scripts/emit-openapi';
import type { ValidationShape } from '../../src/operations/error-shapes';
import { operationReferencedBy } from '../../src/operations/operation';
import { inputShape } from '../../src/operations/graphql-args';
import { laurelModules } from '../../src/modules';
import { issueApiKey } from '../helpers/auth';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { openApiContract } from '../helpers/openapi-contract';

type Json = Record<string, unknown>;
const root = path.resolve(__dirname, '../..');
/** The API reference's component of each validation body: `ValidationFailure<suffix>`. */
const VALIDATION_COMPONENT_SUFFIX: Record<ValidationShape, string> = {
  statusFailed: 'A',
  successFalse: 'B',
  errorIssues: 'C',
  zodResult: 'Zod',
};
const committed = () => JSON.parse(readFileSync(path.join(root, 'openapi.json'), 'utf8')) as Json;

const documentedPath = (base: 'auth' | 'api', routePath: string) =>
  `${base === 'api' ? '/v1' : ''}${routePath.replace(/:(\w+)/g, '{$1}')}`;

let laurel: TestLaurel;
beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true, worker: false });
});
afterAll(async () => {
  await laurel?.stop();
});

describe('the OpenAPI document', () => {
  it('openapi.json is up to date (else run `npm run openapi:emit`)', async () => {
    expect(readFileSync(path.join(root, 'openapi.json'), 'utf8')).toBe(await openApiText());
  });

  it("the client package's types are generated from it (else run `npm run openapi:emit`)", async () => {
    expect(readFileSync(path.join(root, CLIENT_TYPES_FILE), 'utf8')).toBe(await clientTypesText());
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
        const shape = inputShape(operationReferencedBy(route.operation).definition.input);
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
      const served = await fetch(`${laurel.url}${asset}`);
      expect(served.status).toBe(200);
      // Read to the end: an unread body keeps its connection open after the test (1.2 MB of script).
      expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });
});

/**
 * Each point of issue 27, against the running server and the committed document (every answer
 * below is also checked against openapi.json by request()).
 */
describe('the document says exactly what the server does', () => {
  let apiKey: string;
  const contract = openApiContract();
  const { paths, components } = contract.document;
  /** The schema of one operation's request body, or of one of its parameters, compiled. */
  const bodySchema = (template: string, method: string) =>
    contract.validator(['paths', template, method, 'requestBody', 'content', 'application/json', 'schema']);
  const parameterSchema = (template: string, method: string, name: string) =>
    contract.validator([
      'paths',
      template,
      method,
      'parameters',
      String(paths[template][method].parameters!.findIndex((parameter) => parameter.name === name)),
      'schema',
    ]);
  const statusesOf = (template: string, method: string) => Object.keys(paths[template][method].responses);

  beforeAll(async () => {
    apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
  });

  it('1. REST bodies leave out what GraphQL computes: a leaderboard entry is {user, xp_rewarded}', async () => {
    expect(Object.keys(components.schemas.LeaderboardEntryInfo.properties as object)).toEqual([
      'user',
      'xp_rewarded',
    ]);
    const graphqlFields = await graphql<{ __type: { fields: { name: string }[] } }>(
      laurel.url,
      '{ __type(name: "LeaderboardEntryInfo") { fields { name } } }',
    );
    expect(graphqlFields.body.data?.__type.fields.map((field) => field.name)).toContain('profile');
    const board = await request(laurel.url, 'GET', '/v1/leaderboard?chain=local', { apiKey });
    expect(board.status).toBe(200);
  });

  it.each([
    ['POST', '/v1/credit/new'],
    ['POST', '/v1/credit/approve'],
    ['POST', '/v1/credit/permit-data'],
    ['POST', '/v1/credit/balance'],
    ['POST', '/v1/reward/credit'],
    ['GET', '/v1/credit/tokens'],
  ])(
    '2. %s %s (Shape B) documents the key check’s 401 in Shape A, and 503 in both shapes',
    async (method, url) => {
      const refused = await request(laurel.url, method, url, { body: method === 'GET' ? undefined : {} });
      expect(refused).toMatchObject({
        status: 401,
        body: { status: 'failed', error: expect.stringMatching(/^Missing API key/) },
      });
      const operation = paths[url][method.toLowerCase()];
      expect(operation.responses['401'].content!['application/json'].schema).toEqual({
        $ref: '#/components/schemas/FailureA',
      });
      const unavailable = operation.responses['503'].content!['application/json'].schema as {
        anyOf: unknown[];
      };
      expect(unavailable.anyOf).toHaveLength(2);
    },
  );

  it.each(
    contract
      .operations()
      .map((name) => name.split(' ') as [string, string])
      .filter(([method]) => ['POST', 'PUT', 'PATCH'].includes(method)),
  )(
    '3. %s %s answers a body that is not JSON, or not an object, in its own validation shape',
    async (method, template) => {
      const url = template.replace(/\{\w+\}/g, '1');
      const route = laurelModules
        .flatMap((module) => module.routes)
        .find(
          (candidate) =>
            candidate.method === method.toLowerCase() &&
            documentedPath(candidate.base, candidate.path) === template,
        )!;
      const shape = contract.validator([
        'components',
        'schemas',
        `ValidationFailure${VALIDATION_COMPONENT_SUFFIX[route.errors.validation]}`,
      ]);
      for (const [rawBody, issue] of [
        [
          '{"chain": ',
          { code: 'invalid_json', path: [], message: expect.stringMatching(/^Malformed JSON body: /) },
        ],
        [
          '"AAA"',
          {
            code: 'invalid_type',
            expected: 'object',
            received: 'string',
            path: [],
            message: 'Expected object, received string',
          },
        ],
        [
          '[]',
          {
            code: 'invalid_type',
            expected: 'object',
            received: 'array',
            path: [],
            message: 'Expected object, received array',
          },
        ],
        [
          'null',
          {
            code: 'invalid_type',
            expected: 'object',
            received: 'null',
            path: [],
            message: 'Expected object, received null',
          },
        ],
      ] as const) {
        const answer = await request(laurel.url, method, url, { apiKey, rawBody });
        expect({ rawBody, status: answer.status, inShape: shape(answer.body) }).toEqual({
          rawBody,
          status: 400,
          inShape: true,
        });
        expect(JSON.stringify(answer.body)).toContain(issue.code);
        if (route.errors.validation !== 'successFalse') {
          const { issues } = answer.body as { issues?: unknown[]; error?: { issues?: unknown[] } };
          expect(issues ?? (answer.body as { error: { issues: unknown[] } }).error.issues).toEqual([issue]);
        }
      }
    },
  );

  it('4. each path lists the statuses it can answer, and only those', async () => {
    expect(statusesOf('/key/verify', 'post')).toEqual([
      '200',
      '400',
      '401',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    const verify = await request(laurel.url, 'POST', '/key/verify', {
      body: { public_address: Wallet.createRandom().address, signature: `0x${'11'.repeat(65)}` },
    });
    expect(verify).toMatchObject({ status: 401, body: { error: 'Signature verification failed' } });
    expect(statusesOf('/v1/chains', 'get')).toEqual(['200', '401', '429', '500', '503']);
    // 403: a read-only key, on every path but the reads.
    expect(statusesOf('/v1/webhooks', 'get')).toEqual(['200', '401', '403', '429', '500', '503']);
    expect(statusesOf('/v1/webhook/{id}', 'get')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    expect(statusesOf('/v1/transactions', 'get')).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(statusesOf('/v1/reward/badge', 'post')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
  });

  it('5. a literal path’s other methods are 405 with Allow, not taken by a path with a parameter', async () => {
    for (const method of ['PATCH', 'DELETE', 'PUT']) {
      const answer = await request(laurel.url, method, '/v1/webhook/secret', { apiKey });
      expect({ method, status: answer.status, allow: answer.headers.get('allow') }).toEqual({
        method,
        status: 405,
        allow: 'GET, HEAD, POST',
      });
    }
  });

  it('6. inputs are documented as strictly as they are validated', async () => {
    expect(components.schemas.Chain).toMatchObject({ type: 'string', enum: ['local'] });
    const reward = {
      chain: 'local',
      action_id: 'a',
      receiver: Wallet.createRandom().address,
      app_id: Wallet.createRandom().address,
      amount: 1,
    };
    const cases: [string, string, string, Record<string, unknown>][] = [
      ['POST', '/v1/reward/XP', 'chain', { ...reward, chain: 'mainnet' }],
      [
        'POST',
        '/v1/reward/badge',
        'badge_id',
        { ...reward, badge_name: 'x', badge_id: Wallet.createRandom().address },
      ],
      ['POST', '/v1/reward/badge', 'badge_name', reward],
      ['POST', '/v1/webhook', 'url', { url: '' }],
      ['POST', '/v1/webhook', 'url', { url: 'http://example.com/hook' }],
      ['POST', '/v1/webhook', 'events', { url: 'https://example.com/hook', events: ['nope'] }],
      [
        'POST',
        '/v1/credit/new',
        'token_decimals',
        {
          chain: 'local',
          app_id: reward.app_id,
          token_name: 'T',
          token_symbol: 'T',
          token_supply: 1,
          token_decimals: 19,
          token_is_point: false,
        },
      ],
    ];
    for (const [method, url, field, body] of cases) {
      const answer = await request(laurel.url, method, url, { apiKey, body });
      expect({
        url,
        field,
        status: answer.status,
        documented: bodySchema(url, method.toLowerCase())(body),
      }).toEqual({
        url,
        field,
        status: 400,
        documented: false,
      });
    }
    // The webhook logs' page bounds: what the pattern refuses is refused, what it accepts is not.
    const page = parameterSchema('/v1/webhook/{id}/logs', 'get', 'page');
    const pageSize = parameterSchema('/v1/webhook/{id}/logs', 'get', 'page_size');
    for (const [name, value, accepted] of [
      ['page', '0', false],
      ['page', '007', true],
      ['page_size', '0', false],
      ['page_size', '100', true],
      ['page_size', '0100', true],
      ['page_size', '101', false],
    ] as const) {
      const answer = await request(laurel.url, 'GET', `/v1/webhook/1/logs?${name}=${value}`, { apiKey });
      const documented = (name === 'page' ? page : pageSize)(value);
      // An accepted page of an unknown webhook is 404; a refused one is 400 before that.
      expect({ name, value, documented, status: answer.status }).toEqual({
        name,
        value,
        documented: accepted,
        status: accepted ? 404 : 400,
      });
    }
  });

  it('7. the examples of optional addresses are the dev chain’s first app, or none', () => {
    const examples = (template: string) =>
      Object.fromEntries(
        (paths[template].get.parameters ?? []).map((parameter) => [parameter.name, parameter.schema.example]),
      );
    const firstApp = examples('/v1/leaderboard').app_id;
    expect(examples('/v1/leaderboard')).toMatchObject({
      token_address: undefined,
      token_id: undefined,
      start: undefined,
      end: undefined,
    });
    expect(examples('/v1/profile')).toEqual({ chain: undefined, user_id: undefined, app_id: firstApp });
  });

  it('8. GraphQL: every refused input is BAD_USER_INPUT; receipts are typed', async () => {
    const refused = await graphql(laurel.url, 'mutation { createWebhook(url: "not a url") { id } }', {
      apiKey,
    });
    expect(refused.body.errors?.[0]).toMatchObject({
      message: 'invalid url',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const receipt = await graphql<{ __type: { fields: { name: string }[] } }>(
      laurel.url,
      '{ __type(name: "TransactionReceipt") { fields { name } } }',
    );
    expect(receipt.body.data?.__type.fields.map((field) => field.name).sort()).toEqual(
      [
        '_type',
        'blockHash',
        'blockNumber',
        'contractAddress',
        'cumulativeGasUsed',
        'from',
        'gasPrice',
        'blobGasUsed',
        'blobGasPrice',
        'gasUsed',
        'hash',
        'index',
        'logs',
        'logsBloom',
        'root',
        'status',
        'to',
      ].sort(),
    );
    for (const type of ['TransactionExecution', 'TransactionState']) {
      const fields = await graphql<{ __type: { fields: { name: string; type: { name: string } }[] } }>(
        laurel.url,
        `{ __type(name: "${type}") { fields { name type { name } } } }`,
      );
      expect(fields.body.data?.__type.fields.find((field) => field.name === 'receipt')?.type.name).toBe(
        'TransactionReceipt',
      );
    }
  });
});
