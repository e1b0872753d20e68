import fc from 'fast-check';
import { Wallet } from 'ethers';
import { operationOf, operationsOf } from '../../src/operations/operation';
import { inputShape } from '../../src/operations/graphql-args';
import { laurelModules } from '../../src/modules';
import { issueApiKey } from '../helpers/auth';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * Property: whatever a client sends to any REST path or to GraphQL, Laurel answers in time with
 * a status below 500 and a body that names no internals (stack traces, file paths, addresses).
 * Bodies are built from each operation's own field names with hostile values, so validation is
 * exercised past its first check. Seeded, so a failure replays.
 */
const SEED = 20261123;
const REST_RUNS = 1_000;
const GRAPHQL_RUNS = 400;
const ANSWER_DEADLINE_MS = 15_000;

let laurel: TestLaurel;
let apiKey: string;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true, worker: false, env: { RATE_LIMIT_MAX_REQUESTS: '1000000' } });
  apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
});
afterAll(async () => {
  await laurel?.stop();
});

const INTERNALS =
  /stacktrace|\bat .+\.(ts|js):\d+|\/work\/|node_modules|127\.0\.0\.1:\d+|ECONNREFUSED|prisma|postgres:\/\//i;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

async function send(sent: Sent): Promise<{ status: number; text: string }> {
  const response = await fetch(`${laurel.url}${sent.path}`, {
    method: sent.method,
    headers: sent.headers,
    body: sent.body,
    signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
  });
  return { status: response.status, text: await response.text() };
}

function expectSafe(sent: Sent, answer: { status: number; text: string }): void {
  const context = `${sent.method} ${sent.path} ${sent.body?.slice(0, 300) ?? ''} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) throw new Error(`5xx: ${context}`);
  if (INTERNALS.test(answer.text)) throw new Error(`internals in the answer: ${context}`);
}

/** Values a careless or hostile client puts in a field. */
const hostileValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant('local'),
  fc.constant(''),
  fc.constant('0x'),
  fc.constant(`0x${'f'.repeat(40)}`),
  fc.constant(Wallet.createRandom().address),
  fc.constant('1e400'),
  fc.constant(Number.MAX_SAFE_INTEGER),
  fc.constant(-1),
  fc.constant('💥'.repeat(300)),
  fc.constant('%00%ff\u0000\u202e'),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 200 }).map((hex) => `0x${hex}`),
  fc.jsonValue({ maxDepth: 3 }),
);

const restPaths = laurelModules.flatMap((module) =>
  module.routes.map((path) => ({
    ...path,
    fields: Object.keys(inputShape(operationOf(module.resolverClass, path.operation).input)),
  })),
);

const restRequest = fc
  .record({
    route: fc.constantFrom(...restPaths),
    prefix: fc.constantFrom('/v1', '/api/v1'),
    fields: fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 3 }),
    known: fc.array(hostileValue, { minLength: 0, maxLength: 8 }),
    param: fc.oneof(fc.string({ maxLength: 20 }), fc.uuid(), fc.constant('%'), fc.constant('..%2f')),
    body: fc.oneof(fc.constant('object'), fc.constant('raw'), fc.constant('none')),
    raw: fc.oneof(fc.string(), fc.constant('{'), fc.constant('[]'), fc.constant('null'), fc.constant('"x"')),
    contentType: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/merge-patch+json',
    ),
    withKey: fc.oneof(
      { weight: 4, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), {
      nil: undefined,
    }),
  })
  .map((draw): Sent => {
    const values: Record<string, unknown> = { ...draw.fields };
    draw.route.fields.forEach((field, index) => {
      if (index < draw.known.length) values[field] = draw.known[index];
    });
    let path = draw.route.path.replace(/:\w+/g, encodeURIComponent(draw.param).replace(/%25$/, '%'));
    if (draw.route.base === 'api') path = `${draw.prefix}${path}`;
    const method = draw.method ?? draw.route.method.toUpperCase();
    const headers: Record<string, string> = {};
    if (draw.withKey) headers['X-API-KEY'] = apiKey;
    let body: string | undefined;
    if (method === 'GET' || method === 'DELETE') {
      const query = new URLSearchParams(
        Object.entries(values).map(([key, value]): [string, string] => [
          key,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      );
      path = `${path}?${query.toString()}`;
    } else if (draw.body !== 'none') {
      headers['Content-Type'] = draw.contentType;
      body = draw.body === 'object' ? JSON.stringify(values) : draw.raw;
    }
    return { method, path, headers, body };
  });

const graphqlRequest = fc
  .record({
    operation: fc.constantFrom(
      ...laurelModules.flatMap((module) => [...operationsOf(module.resolverClass).keys()]),
    ),
    args: fc.array(fc.tuple(fc.string({ maxLength: 12 }), hostileValue), { maxLength: 6 }),
    selection: fc.constantFrom('__typename', 'unsignedTransaction { to data nonce }', 'id', 'nope { x }', ''),
    junk: fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
    variables: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 4 }), {
      nil: undefined,
    }),
    kind: fc.constantFrom('mutation', 'query', ''),
    withKey: fc.boolean(),
  })
  .map((draw): Sent => {
    const args = draw.args.map(
      ([name, value]) => `${name.replace(/\W/g, '_') || 'x'}: ${JSON.stringify(value)}`,
    );
    const query =
      draw.junk ??
      `${draw.kind} { ${draw.operation}${args.length ? `(${args.join(', ')})` : ''} { ${draw.selection} } }`;
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (draw.withKey) headers['X-API-KEY'] = apiKey;
    return {
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify({ query, variables: draw.variables }),
    };
  });

describe('fuzz: no 5xx, no hang, no internals', () => {
  it(`REST: ${REST_RUNS} requests over every path`, async () => {
    await fc.assert(
      fc.asyncProperty(restRequest, async (sent) => expectSafe(sent, await send(sent))),
      { seed: SEED, numRuns: REST_RUNS },
    );
  }, 300_000);

  it(`GraphQL: ${GRAPHQL_RUNS} documents`, async () => {
    await fc.assert(
      fc.asyncProperty(graphqlRequest, async (sent) => expectSafe(sent, await send(sent))),
      { seed: SEED, numRuns: GRAPHQL_RUNS },
    );
  }, 300_000);
});
