import fc from 'fast-check';
import { Wallet } from 'ethers';
import { operationReferencedBy, operationsOf } from '../../src/operations/operation';
import { inputShape } from '../../src/operations/graphql-args';
import { laurelModules } from '../../src/modules';
import { issueApiKey } from '../helpers/auth';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { openApiContract } from '../helpers/openapi-contract';
import { arbitraryOf } from '../helpers/schema-arbitrary';

/**
 * Properties, seeded so that a failure replays:
 * - whatever a client sends to any REST path or to GraphQL, Laurel answers in time with a status
 *   below 500 and a body that names no internals (stack traces, file paths, addresses); a REST
 *   answer is one openapi.json documents (status and body). Bodies are built from each operation's
 *   own field names with hostile values, so validation is exercised past its first check;
 * - whatever openapi.json's own schemas accept (parameters and bodies generated from them, for
 *   every documented operation) is answered as documented and not refused for a reason the
 *   document could state: a 400 is allowed only for the rules no JSON Schema keyword expresses
 *   (BEYOND_SCHEMA).
 */
const SEED = 20261123;
const REST_RUNS = 1_000;
const GRAPHQL_RUNS = 400;
const DOCUMENTED_RUNS_PER_OPERATION = 15;
const ANSWER_DEADLINE_MS = 15_000;

const contract = openApiContract();

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

async function send(sent: Sent): Promise<Answered> {
  const response = await fetch(`${laurel.url}${sent.path}`, {
    method: sent.method,
    // A connection per request: a kept-alive one that the server closes, its idle timeout reached,
    // as the next request goes out fails that request (ECONNRESET), which happened on a busy
    // machine when drawing the next request took as long as that timeout.
    headers: { ...sent.headers, Connection: 'close' },
    body: sent.body,
    signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

interface Answered {
  status: number;
  headers: Headers;
  text: string;
}

function contextOf(sent: Sent, answer: Answered): string {
  return `${sent.method} ${sent.path} ${sent.body?.slice(0, 300) ?? ''} -> ${answer.status} ${answer.text.slice(0, 300)}`;
}

/** Below 500, no internals, and (for REST) what openapi.json says the path answers. */
function expectSafe(sent: Sent, answer: Answered): void {
  if (answer.status >= 500) throw new Error(`5xx: ${contextOf(sent, answer)}`);
  // The host the client itself named (a sign-in message names it) is not an internal address.
  const own = answer.text.replaceAll(new URL(laurel.url).host, '<the request’s host>');
  if (INTERNALS.test(own)) throw new Error(`internals in the answer: ${contextOf(sent, answer)}`);
  let body: unknown = null;
  try {
    body = answer.text ? JSON.parse(answer.text) : null;
  } catch {
    throw new Error(`not JSON: ${contextOf(sent, answer)}`);
  }
  contract.check({
    method: sent.method,
    url: sent.path,
    status: answer.status,
    headers: answer.headers,
    body,
  });
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
    fields: Object.keys(inputShape(operationReferencedBy(path.operation).definition.input)),
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

/**
 * Refusals of input that openapi.json accepts, for reasons no JSON Schema keyword states (each is
 * said in the field's description): by field, the issue's message.
 */
const BEYOND_SCHEMA: readonly { field: string; message: RegExp; why: string }[] = [
  { field: 'amount', message: /decimal places|is too large/, why: 'the token’s decimals decide' },
  { field: 'token_supply', message: /decimal places|is too large/, why: 'the token’s decimals decide' },
  { field: 'action_id', message: /at most 32 bytes in UTF-8/, why: 'bytes32 counts UTF-8 bytes' },
  { field: 'signed_transaction', message: /signed transaction|not signed|chain id/, why: 'decoded' },
  { field: 'chain', message: /chain id/, why: 'the chain the signed transaction names' },
  { field: 'holder_address', message: /must be the caller's own wallet/, why: 'who calls' },
  { field: 'receiver_address', message: /must be the caller's own wallet/, why: 'who calls' },
  { field: 'token_id', message: /Point tokens are non-transferable/, why: 'what the token is' },
];

/** The issues of a validation failure body, in whichever shape (A, B, C, zod), as field and message. */
function issuesOf(body: unknown): { field: string; message: string }[] {
  const { issues, error } = (body ?? {}) as { issues?: unknown; error?: { issues?: unknown } | string };
  const list = (issues ?? (typeof error === 'object' ? error.issues : undefined)) as
    { path: (string | number)[] | string; parameter?: string; message: string }[] | undefined;
  if (!list) return [{ field: '(none)', message: typeof error === 'string' ? error : JSON.stringify(body) }];
  return list.map((issue) => ({
    field: String(issue.parameter ?? (Array.isArray(issue.path) ? issue.path[0] : issue.path) ?? ''),
    message: issue.message,
  }));
}

/** Requests of one documented operation whose parameters and body its own schemas generate. */
function documentedRequests(method: string, template: string): fc.Arbitrary<Sent> {
  const operation = contract.document.paths[template][method];
  const components = contract.document.components.schemas;
  const parameters = operation.parameters ?? [];
  const inPath = parameters.filter((parameter) => parameter.in === 'path');
  const inQuery = parameters.filter((parameter) => parameter.in === 'query');
  const bodySchema = operation.requestBody?.content['application/json'].schema;
  return fc
    .record({
      path: fc.tuple(...inPath.map((parameter) => arbitraryOf(parameter.schema, components))),
      query: fc.record(
        Object.fromEntries(
          inQuery.map((parameter) => [parameter.name, arbitraryOf(parameter.schema, components)]),
        ),
        {
          requiredKeys: inQuery.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        },
      ),
      body: bodySchema ? arbitraryOf(bodySchema, components) : fc.constant(undefined),
      prefix: fc.constantFrom('', '/api'),
    })
    .map((draw): Sent => {
      let index = 0;
      const filled = template.replace(/\{\w+\}/g, () => encodeURIComponent(String(draw.path[index++])));
      const query = new URLSearchParams(
        Object.entries(draw.query).map(([key, value]): [string, string] => [key, String(value)]),
      );
      const versioned = filled.startsWith('/v1/') ? `${draw.prefix}${filled}` : filled;
      const headers: Record<string, string> = { 'X-API-KEY': apiKey };
      if (draw.body !== undefined) headers['Content-Type'] = 'application/json';
      return {
        method: method.toUpperCase(),
        path: query.size ? `${versioned}?${query.toString()}` : versioned,
        headers,
        body: draw.body === undefined ? undefined : JSON.stringify(draw.body),
      };
    });
}

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

describe('fuzz: what openapi.json accepts is served as documented', () => {
  const operations = contract.operations().map((name) => name.split(' ') as [string, string]);

  it.each(operations)(
    '%s %s',
    async (method, template) => {
      await fc.assert(
        fc.asyncProperty(documentedRequests(method.toLowerCase(), template), async (sent) => {
          const answer = await send(sent);
          expectSafe(sent, answer);
          if (answer.status !== 400) return;
          const unexplained = issuesOf(JSON.parse(answer.text)).filter(
            (issue) =>
              !BEYOND_SCHEMA.some((rule) => rule.field === issue.field && rule.message.test(issue.message)),
          );
          if (unexplained.length) {
            throw new Error(
              `refused what openapi.json accepts: ${JSON.stringify(unexplained)}: ${contextOf(sent, answer)}`,
            );
          }
        }),
        { seed: SEED, numRuns: DOCUMENTED_RUNS_PER_OPERATION },
      );
    },
    120_000,
  );

  it('validated an answer of every path and method of openapi.json', () => {
    const answered = new Set([...contract.seen].map((seen) => seen.split(' ').slice(0, 2).join(' ')));
    expect(contract.operations().filter((operation) => !answered.has(operation))).toEqual([]);
  });
});
