import { Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * The 401 of a missing or unreadable key, over REST and GraphQL: the documented text first, then
 * how to get a key; and, when the request sent `Authorization` instead of X-API-KEY, that Laurel
 * does not read it. A revoked key keeps its documented text alone. Then the other way to a key:
 * the client's browser bundle the pages load (the pages themselves: browser-pages.test.ts).
 */
let laurel: TestLaurel;
beforeAll(async () => {
  laurel = await startTestLaurel();
});
afterAll(async () => {
  await laurel?.stop();
});

const HOW_TO_GET_ONE =
  'Get a key: POST /key/challenge, then POST /key/verify with the challenge signed by your wallet; ' +
  'or "Sign in with a wallet" at /graphql; or `laurel key` (the @laurel/client command-line tool)';
const AUTHORIZATION_NOT_READ =
  'Laurel does not read the Authorization header: send the key itself in X-API-KEY (no "Bearer")';

async function rest(headers: Record<string, string>) {
  return request(laurel.url, 'GET', '/v1/keys', { headers });
}

async function graphqlKeys(headers: Record<string, string>) {
  const answer = await request<{
    data: unknown;
    errors: { message: string; extensions: { code: string } }[];
  }>(laurel.url, 'POST', '/graphql', { body: { query: '{ apiKeys { id } }' }, headers });
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  return answer.body.errors[0].message;
}

describe('a missing or unreadable key', () => {
  it('REST: 401 in Shape A that says how to get a key', async () => {
    expect(await rest({})).toMatchObject({
      status: 401,
      body: {
        status: 'failed',
        error: `Missing API key: send it in the X-API-KEY header. ${HOW_TO_GET_ONE}`,
      },
    });
    expect(await rest({ 'X-API-KEY': 'nope' })).toMatchObject({
      status: 401,
      body: { status: 'failed', error: `Invalid API key. ${HOW_TO_GET_ONE}` },
    });
  });

  it('REST: a key sent as `Authorization: Bearer …` is refused with why, and works in X-API-KEY', async () => {
    const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
    expect(await rest({ Authorization: `Bearer ${apiKey}` })).toMatchObject({
      status: 401,
      body: {
        status: 'failed',
        error: `Missing API key: send it in the X-API-KEY header. ${AUTHORIZATION_NOT_READ}. ${HOW_TO_GET_ONE}`,
      },
    });
    expect((await rest({ 'X-API-KEY': apiKey, Authorization: `Bearer ${apiKey}` })).status).toBe(200);
  });

  it('GraphQL: UNAUTHENTICATED with the same help, for an operation that needs an account', async () => {
    expect(await graphqlKeys({})).toBe(
      `Missing or invalid API key: send it in the X-API-KEY header. ${HOW_TO_GET_ONE}`,
    );
    expect(await graphqlKeys({ 'X-API-KEY': 'nope' })).toBe(
      `Invalid API key: send a live key in the X-API-KEY header. ${HOW_TO_GET_ONE}`,
    );
    const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
    expect(await graphqlKeys({ Authorization: `Bearer ${apiKey}` })).toBe(
      `Missing or invalid API key: send it in the X-API-KEY header. ${AUTHORIZATION_NOT_READ}. ${HOW_TO_GET_ONE}`,
    );
  });

  it('a revoked key keeps its documented text alone, over REST and GraphQL', async () => {
    const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
    const listed = await request<{ keys: { id: string }[] }>(laurel.url, 'GET', '/v1/keys', { apiKey });
    await request(laurel.url, 'DELETE', `/v1/keys/${listed.body.keys[0].id}`, { apiKey });
    expect(await rest({ 'X-API-KEY': apiKey })).toMatchObject({
      status: 401,
      body: { status: 'failed', error: 'API key revoked' },
    });
    expect(await graphqlKeys({ 'X-API-KEY': apiKey })).toBe(
      'API key revoked: send a live key in the X-API-KEY header',
    );
  });
});

describe('the client’s browser bundle, which the pages’ "Sign in with a wallet" loads', () => {
  it('is served as a JavaScript module, revalidated by its ETag', async () => {
    const url = `${laurel.url}/graphql/assets/laurel-client.js`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(await first.text()).toMatch(/export\{[^}]*\beip1193Signer\b/);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect((await fetch(url, { headers: { 'If-None-Match': etag } })).status).toBe(304);

    const page = await (await fetch(`${laurel.url}/graphql`, { headers: { Accept: 'text/html' } })).text();
    expect(page).toContain(`from "/graphql/assets/laurel-client.js"`);
    expect(page).toContain('Sign in with a wallet');
  });
});
