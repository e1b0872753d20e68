import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Wallet } from 'ethers';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits';
import { issueApiKey } from '../helpers/auth';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { statusOf } from '../helpers/laurel-process';

/**
 * What an attacker or a careless client can send, answered with a 4xx in the documented shape,
 * never a 5xx, a stall or internals. Limits are set low here so that they can be reached.
 */
let laurel: TestLaurel;
const savedNodeEnv = process.env.NODE_ENV;

const REQUEST_BUDGET = 30;
const KEYS_PER_WALLET = 3;

beforeAll(async () => {
  // As under `npm start`: Apollo would include stack traces when NODE_ENV is unset.
  process.env.NODE_ENV = '';
  laurel = await startTestLaurel({
    worker: false,
    env: {
      RATE_LIMIT_MAX_REQUESTS: String(REQUEST_BUDGET),
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      API_KEYS_PER_WALLET: String(KEYS_PER_WALLET),
      HTTP_REQUEST_TIMEOUT_MS: '1000',
    },
  });
});
afterAll(async () => {
  await laurel?.stop();
  process.env.NODE_ENV = savedNodeEnv;
});

/** Sends `text` on a socket of its own and resolves with all that comes back until it closes. */
async function rawExchange(text: string): Promise<string> {
  const { port } = new URL(laurel.url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    setTimeout(() => reject(new Error('still open after 20 s')), 20_000).unref();
  });
}

async function challengeRows(): Promise<number> {
  const [row] = await laurel.services.prisma.$queryRaw<{ count: bigint }[]>`
    SELECT count(*) AS count FROM api_key_challenges`;
  return Number(row.count);
}

describe('bounded GraphQL', () => {
  it('refuses a document of 10,000 aliases with 400 before running any of it', async () => {
    const key = await issueApiKey(laurel.url, Wallet.createRandom());
    const query = `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: apps(chain: "local") { id }`).join(' ')} }`;
    const result = await graphql(laurel.url, query, { apiKey: key });
    // Refused by the parser's token limit: the lexer stops at the limit's token, so none of the
    // document is parsed further, validated or run. (A wall-clock bound here measured the machine's
    // load, not this.)
    expect(result.status).toBe(400);
    expect(result.body.errors?.[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(result.body.errors?.[0].message).toMatch(/contains more tha[nt] 2000 tokens/i);
    expect((await request(laurel.url, 'GET', '/health')).status).toBe(200);
  });

  it('refuses more aliases than the limit, even without a key, and stores no challenge', async () => {
    const before = await challengeRows();
    const aliases = GRAPHQL_LIMITS.maxAliases + 1;
    const address = Wallet.createRandom().address;
    const query = `mutation { ${Array.from(
      { length: aliases },
      (_, i) => `c${i}: requestApiKeyChallenge(public_address: "${address}") { challenge }`,
    ).join(' ')} }`;
    const result = await graphql(laurel.url, query);
    expect(result.status).toBe(400);
    expect(result.body.errors?.[0].message).toMatch(/aliases/i);
    expect(await challengeRows()).toBe(before);
  });

  it('refuses a query nested deeper than the limit', async () => {
    const deep = `{ ${'__schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }'} }`;
    const result = await graphql(laurel.url, `query Deep ${deep}`);
    // Introspection is exempt from depth (the Playground needs it); a real field is not.
    expect(result.status).toBe(200);
    const key = await issueApiKey(laurel.url, Wallet.createRandom());
    const fragmentLoop = `query { apps(chain: "local") { ...A } } fragment A on AppInfo { id ...B } fragment B on AppInfo { ...A }`;
    const looped = await graphql(laurel.url, fragmentLoop, { apiKey: key });
    expect(looped.status).toBe(400);
  });

  it('counts every root field against the wallet budget, so GraphQL does no more than REST', async () => {
    const wallet = Wallet.createRandom();
    const key = await issueApiKey(laurel.url, wallet);
    const tenKeys = `{ ${Array.from({ length: 10 }, (_, i) => `k${i}: apiKeys { id }`).join(' ')} }`;
    for (let spent = 0; spent + 10 <= REQUEST_BUDGET; spent += 10) {
      expect((await graphql(laurel.url, tenKeys, { apiKey: key })).status).toBe(200);
    }
    const over = await graphql(laurel.url, tenKeys, { apiKey: key });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(over.body.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
    expect((await request(laurel.url, 'GET', '/v1/keys', { apiKey: key })).status).toBe(429);
  });

  it('has no stack traces or file paths in errors, whatever NODE_ENV is', async () => {
    for (const body of ['{"query":"‹"}', '{"query":"{ nope }"}', '{"query":1}', '[]']) {
      const result = await request(laurel.url, 'POST', '/graphql', { rawBody: body });
      expect(result.status).toBeLessThan(500);
      const text = JSON.stringify(result.body);
      expect(text).not.toMatch(/stacktrace|\/work\/|node_modules|\.ts:\d+/);
    }
  });

  it('answers a GraphQL body that is not JSON with 400 BAD_REQUEST, in GraphQL’s error format', async () => {
    const result = await request(laurel.url, 'POST', '/graphql', { rawBody: '{"query": ' });
    expect({ status: result.status, body: result.body }).toEqual({
      status: 400,
      body: {
        errors: [
          { message: expect.stringMatching(/^Malformed JSON body: /), extensions: { code: 'BAD_REQUEST' } },
        ],
      },
    });
  });
  it('answers a persisted query of another version or hash, or a subscription over HTTP, as the client’s mistake', async () => {
    const hash = 'a'.repeat(64);
    const persisted = (extension: object, query?: string) =>
      request(laurel.url, 'POST', '/graphql', { body: { query, extensions: { persistedQuery: extension } } });
    const refusals = [
      [await persisted({ version: 2, sha256Hash: hash }), 'Unsupported persisted query version'],
      [
        await persisted({ version: 1, sha256Hash: hash }, '{ __typename }'),
        'provided sha does not match query',
      ],
    ] as const;
    for (const [result, message] of refusals) {
      expect({ status: result.status, body: result.body }).toEqual({
        status: 400,
        body: { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] },
      });
    }
    const subscription = await graphql(
      laurel.url,
      'subscription { profileChanged(chain: "local") { xp_balance } }',
    );
    expect({ status: subscription.status, body: subscription.body }).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message:
              'Subscriptions run over WebSocket at /graphql (graphql-ws, protocol graphql-transport-ws), not over HTTP',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      },
    });
  });
});

describe('fair limits', () => {
  it(`caps a wallet at ${KEYS_PER_WALLET} active keys with a clear 409; revoking one makes room`, async () => {
    const wallet = Wallet.createRandom();
    const keys: string[] = [];
    for (let i = 0; i < KEYS_PER_WALLET; i++) keys.push(await issueApiKey(laurel.url, wallet));
    const { body: challenge } = await request<{ challenge: string }>(laurel.url, 'POST', '/key/challenge', {
      body: { public_address: wallet.address },
    });
    const signature = await wallet.signMessage(challenge.challenge);
    const refused = await request(laurel.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: `This wallet already has ${KEYS_PER_WALLET} active API keys: revoke one (DELETE /v1/keys/:id) before creating another`,
    });
    const listed = await request<{ keys: { id: string }[] }>(laurel.url, 'GET', '/v1/keys', {
      apiKey: keys[0],
    });
    await request(laurel.url, 'DELETE', `/v1/keys/${listed.body.keys[0].id}`, { apiKey: keys[1] });
    // The same signed challenge was not used up by the refusal.
    const accepted = await request(laurel.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature },
    });
    expect(accepted.status).toBe(200);
  });

  it('a stranger’s challenges for a wallet cannot push out the one it signed', async () => {
    const wallet = Wallet.createRandom();
    const { body } = await request<{ challenge: string }>(laurel.url, 'POST', '/key/challenge', {
      body: { public_address: wallet.address },
    });
    for (let i = 0; i < 20; i++) {
      await request(laurel.url, 'POST', '/key/challenge', { body: { public_address: wallet.address } });
      await request(laurel.url, 'POST', '/key/verify', {
        body: { public_address: wallet.address, signature: `0x${'ab'.repeat(65)}` },
      });
    }
    const verified = await request(laurel.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature: await wallet.signMessage(body.challenge) },
    });
    expect(verified.status).toBe(200);
  });

  it('limits /key/challenge and /key/verify per client address and challenges per wallet, across processes', async () => {
    const limited = await startTestLaurel({
      worker: false,
      env: { KEY_REQUESTS_PER_CLIENT: '4', KEY_CHALLENGES_PER_WALLET: '2' },
    });
    try {
      const wallet = Wallet.createRandom();
      const challenge = () =>
        request(limited.url, 'POST', '/key/challenge', { body: { public_address: wallet.address } });
      expect((await challenge()).status).toBe(200);
      expect((await challenge()).status).toBe(200);
      const perWallet = await challenge();
      expect(perWallet.status).toBe(429);
      expect(perWallet.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(perWallet.body).toEqual({
        status: 'failed',
        error: 'Too many requests',
        retry_after: Number(perWallet.headers.get('retry-after')),
      });
      const verify = await request(limited.url, 'POST', '/key/verify', {
        body: { public_address: wallet.address, signature: '0x00' },
      });
      expect(verify.status).toBe(401);
      // The fifth key request of this client: over its budget, for any wallet, GraphQL included.
      const other = await request(limited.url, 'POST', '/key/challenge', {
        body: { public_address: Wallet.createRandom().address },
      });
      expect(other.status).toBe(429);
      const viaGraphQL = await graphql(
        limited.url,
        `mutation { requestApiKeyChallenge(public_address: "${Wallet.createRandom().address}") { challenge } }`,
      );
      expect(viaGraphQL.body.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
    } finally {
      await limited.stop();
    }
  });
});

describe('client mistakes answer 4xx, never 5xx', () => {
  const body = JSON.stringify({ public_address: Wallet.createRandom().address });

  // A body that cannot be read is refused in the path's own validation shape (Shape C here).
  const unreadable = {
    error: {
      issues: [{ code: 'invalid_body', path: [], message: expect.stringMatching(/^Unreadable body: /) }],
    },
  };
  const refused = { status: 'failed', error: expect.any(String) };
  it.each([
    ['gzip that is not', { 'Content-Encoding': 'gzip' }, body, 400, unreadable],
    ['deflate that is not', { 'Content-Encoding': 'deflate' }, body, 400, unreadable],
    ['brotli that is not', { 'Content-Encoding': 'br' }, body, 400, unreadable],
    ['an unknown encoding', { 'Content-Encoding': 'lzma' }, body, 415, refused],
    ['charset latin1', { 'Content-Type': 'application/json; charset=latin1' }, body, 415, refused],
    ['a bogus charset', { 'Content-Type': 'application/json; charset=klingon' }, body, 415, refused],
    // body-parser reads any utf-… charset: Laurel reads UTF-8 only.
    [
      'a UTF-16 body',
      { 'Content-Type': 'application/json; charset=utf-16le' },
      Buffer.from(body, 'utf16le'),
      415,
      { status: 'failed', error: 'Unsupported body: unsupported charset "UTF-16LE"' },
    ],
    // Not decoded with U+FFFD in place of the bytes that are not UTF-8.
    [
      'bytes that are not UTF-8',
      {},
      Buffer.concat([Buffer.from('{"public_address": "0x'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      400,
      {
        error: {
          issues: [{ code: 'invalid_body', path: [], message: 'Unreadable body: the body is not UTF-8' }],
        },
      },
    ],
    ['no content type', { 'Content-Type': '' }, body, 415, refused],
    ['a form body', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'a=b', 415, refused],
  ])('%s', async (_name, headers, rawBody, status, answer) => {
    const result = await request(laurel.url, 'POST', '/key/challenge', {
      headers: { 'Content-Type': 'application/json', ...headers },
      rawBody,
    });
    expect({ status: result.status, body: result.body }).toEqual({ status, body: answer });
  });

  it('accepts a real gzip body', async () => {
    const status = await statusOf(`${laurel.url}/key/challenge`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(body),
    });
    expect(status).toBe(200);
  });

  it('answers a malformed percent-encoding in a path with 400', async () => {
    const key = await issueApiKey(laurel.url, Wallet.createRandom());
    const result = await request(laurel.url, 'DELETE', '/v1/keys/%', { apiKey: key });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({ status: 'failed', error: 'Malformed URL: invalid percent-encoding' });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const key = await issueApiKey(laurel.url, Wallet.createRandom());
    const get = await request(laurel.url, 'GET', '/v1/reward/XP', { apiKey: key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.body).toEqual({ status: 'failed', error: expect.stringContaining('use POST') });
    const post = await request(laurel.url, 'POST', '/key/challenge'.replace('challenge', 'verify'), {
      body: {},
    });
    expect(post.status).toBe(400);
    const put = await request(laurel.url, 'PUT', '/key/challenge', { body: {} });
    expect(put.status).toBe(405);
    // A literal path's other methods are 405 even where a path with a parameter would match.
    const execute = await request(laurel.url, 'GET', '/v1/transactions/execute', { apiKey: key });
    expect(execute.status).toBe(405);
    expect(execute.headers.get('allow')).toBe('POST');
    const secret = await request(laurel.url, 'DELETE', '/v1/webhook/secret', { apiKey: key });
    expect(secret.status).toBe(405);
    expect(secret.headers.get('allow')).toBe('GET, HEAD, POST');
    const health = await request(laurel.url, 'POST', '/health');
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
  });

  it('matches paths as Express does: in any case, with one trailing slash, HEAD as GET', async () => {
    const key = await issueApiKey(laurel.url, Wallet.createRandom());
    const chains = await request(laurel.url, 'GET', '/v1/chains', { apiKey: key });
    expect(chains.status).toBe(200);
    const loose = await request(laurel.url, 'GET', '/API/V1/Chains/', { apiKey: key });
    expect(loose.status).toBe(200);
    expect(loose.body).toEqual(chains.body);
    const head = await fetch(`${laurel.url}/v1/chains`, { method: 'HEAD', headers: { 'X-API-KEY': key } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await request(laurel.url, 'GET', '/v1/chains//', { apiKey: key })).status).toBe(404);
    // Under {base_url} the key comes first, even for a path that is not there.
    expect((await request(laurel.url, 'GET', '/v1/no-such-path')).status).toBe(401);
  });

  it('answers a GraphQL query sent with GET, under Apollo’s CSRF rule, never with a 500', async () => {
    const url = `${laurel.url}/graphql?query=${encodeURIComponent('{ __typename }')}`;
    expect(await statusOf(url)).toBe(400);
    const allowed = await fetch(url, { headers: { 'Apollo-Require-Preflight': 'true' } });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('cuts off a client that trickles its body', async () => {
    const started = Date.now();
    const answer = await rawExchange(
      'POST /key/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('answers what Node’s HTTP parser refuses with its status and a Shape A body, not a bare status', async () => {
    const failed = (error: string | RegExp) => ({
      status: 'failed',
      error: typeof error === 'string' ? error : (expect.stringMatching(error) as string),
    });
    const cases: [string, number, ReturnType<typeof failed>][] = [
      [
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        failed('Request header fields too large (16 KB in all at most)'),
      ],
      ['FOO /health HTTP/1.1\r\nHost: x\r\n\r\n', 400, failed(/^Bad request: malformed HTTP \(HPE_/)],
      [
        'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
        400,
        failed(/^Bad request: malformed HTTP \(HPE_/),
      ],
      [
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
        405,
        failed('Method not allowed: CONNECT'),
      ],
      // Headers that never end: answered when HTTP_REQUEST_TIMEOUT_MS (1 s here) has passed.
      [
        'GET /health HTTP/1.1\r\nHost: x\r\n',
        408,
        failed('Request timeout: the request did not arrive in time (HTTP_REQUEST_TIMEOUT_MS)'),
      ],
    ];
    for (const [sent, status, body] of cases) {
      const answer = await rawExchange(sent);
      const [head, text] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head.toLowerCase()).toContain('content-type: application/json');
      expect(head.toLowerCase()).toContain('connection: close');
      expect(JSON.parse(text)).toEqual(body);
    }
    expect((await request(laurel.url, 'GET', '/health')).status).toBe(200);
  });
});

describe('headers', () => {
  it('answers a key with Cache-Control: no-store and the usual security headers', async () => {
    const wallet = Wallet.createRandom();
    const { body } = await request<{ challenge: string }>(laurel.url, 'POST', '/key/challenge', {
      body: { public_address: wallet.address },
    });
    const verified = await request(laurel.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature: await wallet.signMessage(body.challenge) },
    });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    expect(verified.headers.get('x-content-type-options')).toBe('nosniff');
    expect(verified.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('does not let the Playground be framed', async () => {
    const page = await fetch(`${laurel.url}/graphql`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('<html');
  });
});
