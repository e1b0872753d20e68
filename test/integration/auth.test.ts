import { parseCrontab } from 'graphile-worker';
import { Client } from 'pg';
import { HDNodeWallet, Wallet } from 'ethers';
import { loadConfig } from '../../src/config';
import { crontab } from '../../src/jobs/tasks';
import { jobs } from '../../src/jobs/jobs';
import { createLogger } from '../../src/logger';
import { startLaurel, type Laurel } from '../../src/server/laurel';
import { issueApiKey } from '../helpers/auth';
import { runJobOnce } from '../helpers/jobs';
import { waitUntil } from '../helpers/wait';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

const FAILED = { error: 'Signature verification failed' };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface KeyListing {
  id: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  scope: string;
  expires_at: string | null;
}

async function challengeFor(url: string, address: string): Promise<string> {
  const result = await request<{ status: string; challenge: string }>(url, 'POST', '/key/challenge', {
    body: { public_address: address },
  });
  expect(result.status).toBe(200);
  return result.body.challenge;
}

function verify(url: string, signature: string, address: string) {
  return request(url, 'POST', '/key/verify', { body: { signature, public_address: address } });
}

async function keysOf(url: string, apiKey: string): Promise<KeyListing[]> {
  const result = await request<{ status: string; keys: KeyListing[] }>(url, 'GET', '/v1/keys', { apiKey });
  expect(result.status).toBe(200);
  return result.body.keys;
}

async function sql<T extends object = Record<string, unknown>>(
  databaseUrl: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

let laurel: TestLaurel;

beforeAll(async () => {
  laurel = await startTestLaurel({ worker: false });
});
afterAll(async () => {
  await laurel?.stop();
});

describe('getting an API key', () => {
  it('issues a key for a signed challenge, usable on /v1, /api/v1 and GraphQL', async () => {
    const wallet = Wallet.createRandom();
    const before = Date.now();
    const challenge = await request<{ status: string; challenge: string }>(
      laurel.url,
      'POST',
      '/key/challenge',
      { body: { public_address: wallet.address } },
    );
    expect(challenge.status).toBe(200);
    expect(challenge.body).toEqual({ status: 'success', challenge: expect.any(String) });

    const text = challenge.body.challenge;
    const lines = text.split('\n');
    // Sign-In with Ethereum (EIP-4361): the domain and URI the request came to, the chain's id.
    const { host, origin } = new URL(laurel.url);
    expect(lines[0]).toBe(`${host} wants you to sign in with your Ethereum account:`);
    expect(lines[1]).toBe(wallet.address);
    expect(text).toMatch(/Laurel API key/);
    expect(text).toMatch(/^Version: 1$/m);
    expect(text).toContain(`\nURI: ${origin}\n`);
    expect(text).toMatch(/^Chain ID: \d+$/m);
    const nonce = /^Nonce: ([0-9a-f]{32})$/m.exec(text)?.[1];
    expect(nonce).toBeDefined();
    const issuedAt = Date.parse(/^Issued At: (\S+)$/m.exec(text)?.[1] ?? '');
    const expiresAt = Date.parse(/^Expiration Time: (\S+)$/m.exec(text)?.[1] ?? '');
    expect(issuedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(issuedAt).toBeLessThanOrEqual(Date.now() + 1000);
    expect(expiresAt - issuedAt).toBe(600_000);

    const [row] = await sql<{ address: string; message: string; consumed_at: Date | null }>(
      laurel.databaseUrl,
      'SELECT address, message, consumed_at FROM api_key_challenges WHERE nonce = $1',
      [nonce],
    );
    expect(row).toEqual({ address: wallet.address, message: text, consumed_at: null });

    const verified = await verify(laurel.url, await wallet.signMessage(text), wallet.address);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ api_key: expect.stringMatching(/^laurel_[A-Za-z0-9_-]{43}$/) });
    const apiKey = verified.body.api_key as string;

    for (const prefix of ['/v1', '/api/v1']) {
      const listed = await request(laurel.url, 'GET', `${prefix}/keys`, { apiKey });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        status: 'success',
        keys: [
          {
            id: expect.stringMatching(/^[0-9a-f-]{36}$/),
            prefix: apiKey.slice(0, 12),
            created_at: expect.stringMatching(ISO),
            last_used_at: expect.stringMatching(ISO),
            revoked_at: null,
            scope: 'full',
            expires_at: null,
          },
        ],
      });
    }

    const viaGraphQL = await graphql(
      laurel.url,
      '{ apiKeys { id prefix created_at last_used_at revoked_at scope expires_at } }',
      {
        apiKey,
      },
    );
    expect(viaGraphQL.status).toBe(200);
    expect(viaGraphQL.body.errors).toBeUndefined();
    expect(viaGraphQL.body.data).toEqual({ apiKeys: await keysOf(laurel.url, apiKey) });

    // Only the hash is stored; the account exists.
    const stored = await sql(laurel.databaseUrl, 'SELECT key_hash, prefix FROM api_keys');
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(
      await sql(laurel.databaseUrl, 'SELECT address FROM accounts WHERE address = $1', [wallet.address]),
    ).toHaveLength(1);
  });

  it('works with addresses without 0x and in lower or upper case', async () => {
    const wallet = Wallet.createRandom();
    const bare = wallet.address.slice(2);
    const challenge = await challengeFor(laurel.url, bare.toLowerCase());
    expect(challenge.split('\n')[1]).toBe(wallet.address);
    const signature = await wallet.signMessage(challenge);
    const verified = await verify(laurel.url, signature, `0x${bare.toUpperCase()}`);
    expect(verified.status).toBe(200);

    const second = await challengeFor(laurel.url, bare.toUpperCase());
    const again = await verify(laurel.url, await wallet.signMessage(second), wallet.address.toLowerCase());
    expect(again.status).toBe(200);
    // One account, two keys.
    expect(await keysOf(laurel.url, again.body.api_key as string)).toHaveLength(2);
  });

  it('takes the signature with or without 0x', async () => {
    const wallet = Wallet.createRandom();
    const signature = await wallet.signMessage(await challengeFor(laurel.url, wallet.address));
    expect((await verify(laurel.url, signature.slice(2), wallet.address)).status).toBe(200);
  });

  it('accepts the signature of an older open challenge of the address', async () => {
    // Someone else asking for a challenge for my address must not spoil the one I signed.
    const wallet = Wallet.createRandom();
    const mine = await challengeFor(laurel.url, wallet.address);
    await challengeFor(laurel.url, wallet.address);
    const verified = await verify(laurel.url, await wallet.signMessage(mine), wallet.address);
    expect(verified.status).toBe(200);
  });

  it('gives test helpers a key through issueApiKey', async () => {
    const wallet = HDNodeWallet.createRandom();
    const apiKey = await issueApiKey(laurel.url, wallet);
    expect(await keysOf(laurel.url, apiKey)).toHaveLength(1);
  });
});

describe('failed verification', () => {
  it('rejects a signature by another wallet, and consumes nothing: the wallet’s own signature still works', async () => {
    const wallet = Wallet.createRandom();
    const challenge = await challengeFor(laurel.url, wallet.address);
    const wrong = await verify(
      laurel.url,
      await Wallet.createRandom().signMessage(challenge),
      wallet.address,
    );
    expect(wrong).toMatchObject({ status: 401, body: FAILED });
    expect(wrong.body).toEqual(FAILED);
    const right = await verify(laurel.url, await wallet.signMessage(challenge), wallet.address);
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ api_key: expect.stringMatching(/^laurel_/) });
    // Used once, then never again.
    const replay = await verify(laurel.url, await wallet.signMessage(challenge), wallet.address);
    expect(replay).toMatchObject({ status: 401, body: FAILED });
  });

  it('rejects a signature of another text', async () => {
    const wallet = Wallet.createRandom();
    const challenge = await challengeFor(laurel.url, wallet.address);
    const result = await verify(laurel.url, await wallet.signMessage(`${challenge}\nextra`), wallet.address);
    expect(result.status).toBe(401);
    expect(result.body).toEqual(FAILED);
  });

  it.each([
    ['65 garbage bytes', `0x${'ab'.repeat(65)}`],
    ['a short hex string', '0xdeadbeef'],
    ['zeros', `0x${'00'.repeat(65)}`],
  ])('rejects a garbage signature (%s)', async (_name, signature) => {
    const wallet = Wallet.createRandom();
    await challengeFor(laurel.url, wallet.address);
    const result = await verify(laurel.url, signature, wallet.address);
    expect(result.status).toBe(401);
    expect(result.body).toEqual(FAILED);
  });

  it('rejects a reused challenge', async () => {
    const wallet = Wallet.createRandom();
    const signature = await wallet.signMessage(await challengeFor(laurel.url, wallet.address));
    expect((await verify(laurel.url, signature, wallet.address)).status).toBe(200);
    const reused = await verify(laurel.url, signature, wallet.address);
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual(FAILED);
  });

  it('lets only one of two concurrent verifications use a challenge', async () => {
    const wallet = Wallet.createRandom();
    const signature = await wallet.signMessage(await challengeFor(laurel.url, wallet.address));
    const results = await Promise.all(
      Array.from({ length: 4 }, () => verify(laurel.url, signature, wallet.address)),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it('rejects a verification without a challenge', async () => {
    const wallet = Wallet.createRandom();
    const result = await verify(laurel.url, await wallet.signMessage('anything'), wallet.address);
    expect(result.status).toBe(401);
    expect(result.body).toEqual(FAILED);
  });

  it('rejects an expired challenge', async () => {
    const shortLived = await startTestLaurel({ worker: false, env: { API_KEY_CHALLENGE_TTL_SECONDS: '1' } });
    try {
      const wallet = Wallet.createRandom();
      const challenge = await challengeFor(shortLived.url, wallet.address);
      const issuedAt = Date.parse(/^Issued At: (\S+)$/m.exec(challenge)?.[1] ?? '');
      const expiresAt = Date.parse(/^Expiration Time: (\S+)$/m.exec(challenge)?.[1] ?? '');
      expect(expiresAt - issuedAt).toBe(1000);
      const signature = await wallet.signMessage(challenge);
      await waitUntil('the challenge to expire', () => Date.now() > expiresAt);
      const result = await verify(shortLived.url, signature, wallet.address);
      expect(result.status).toBe(401);
      expect(result.body).toEqual(FAILED);
    } finally {
      await shortLived.stop();
    }
  });
});

describe('bad input to the key endpoints', () => {
  const address = Wallet.createRandom().address;
  const signature = `0x${'ab'.repeat(65)}`;
  const required = (field: string) => ({
    code: 'invalid_type',
    expected: 'string',
    received: 'undefined',
    path: [field],
    message: 'Required',
  });
  const cases: [string, string, unknown, unknown[]][] = [
    ['challenge: no field', '/key/challenge', {}, [required('public_address')]],
    [
      'challenge: number address',
      '/key/challenge',
      { public_address: 42 },
      [
        {
          code: 'invalid_type',
          expected: 'string',
          received: 'number',
          path: ['public_address'],
          message: 'Expected string, received number',
        },
      ],
    ],
    [
      'challenge: address pattern',
      '/key/challenge',
      { public_address: '0x1234' },
      [{ validation: 'regex', code: 'invalid_string', path: ['public_address'], message: 'Invalid address' }],
    ],
    [
      'challenge: over-long address',
      '/key/challenge',
      { public_address: `0x${'a'.repeat(5000)}` },
      [{ validation: 'regex', code: 'invalid_string', path: ['public_address'], message: 'Invalid address' }],
    ],
    ['verify: no fields', '/key/verify', {}, [required('signature'), required('public_address')]],
    ['verify: no signature', '/key/verify', { public_address: address }, [required('signature')]],
    ['verify: no address', '/key/verify', { signature }, [required('public_address')]],
    [
      'verify: number signature',
      '/key/verify',
      { signature: 1234, public_address: address },
      [
        {
          code: 'invalid_type',
          expected: 'string',
          received: 'number',
          path: ['signature'],
          message: 'Expected string, received number',
        },
      ],
    ],
    [
      'verify: number address',
      '/key/verify',
      { signature, public_address: 1 },
      [expect.objectContaining({ code: 'invalid_type', path: ['public_address'] })],
    ],
    [
      'verify: not hex',
      '/key/verify',
      { signature: 'signed!', public_address: address },
      [{ validation: 'regex', code: 'invalid_string', path: ['signature'], message: 'Invalid hex string' }],
    ],
    [
      'verify: over-long signature',
      '/key/verify',
      { signature: `0x${'ab'.repeat(1000)}`, public_address: address },
      [expect.objectContaining({ code: 'too_big', path: ['signature'], maximum: 256 })],
    ],
    [
      'verify: bad address',
      '/key/verify',
      { signature, public_address: 'me' },
      [{ validation: 'regex', code: 'invalid_string', path: ['public_address'], message: 'Invalid address' }],
    ],
    [
      'verify: a JSON array',
      '/key/verify',
      [],
      [expect.objectContaining({ code: 'invalid_type', expected: 'object', received: 'array', path: [] })],
    ],
  ];

  it.each(cases)('answers 400 in Shape C (%s)', async (_name, path, body, issues) => {
    const result = await request(laurel.url, 'POST', path, { body });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({ error: { issues } });
  });

  it.each(['/key/challenge', '/key/verify'])(
    'answers 400 in Shape C to a body that is not JSON, or not an object (%s)',
    async (path) => {
      for (const rawBody of ['{"public_address": ', 'public_address=0x12']) {
        const result = await request(laurel.url, 'POST', path, { rawBody });
        expect(result.status).toBe(400);
        expect(result.body).toEqual({
          error: {
            issues: [
              { code: 'invalid_json', path: [], message: expect.stringMatching(/^Malformed JSON body: /) },
            ],
          },
        });
      }
      // JSON, but not an object: refused as zod refuses it.
      for (const [rawBody, received] of [
        ['"a string"', 'string'],
        ['null', 'null'],
        ['[]', 'array'],
      ]) {
        const result = await request(laurel.url, 'POST', path, { rawBody });
        expect({ status: result.status, body: result.body }).toEqual({
          status: 400,
          body: {
            error: {
              issues: [
                {
                  code: 'invalid_type',
                  expected: 'object',
                  received,
                  path: [],
                  message: `Expected object, received ${received}`,
                },
              ],
            },
          },
        });
      }
      // Not declared as JSON: 415, not a guess.
      const plain = await request(laurel.url, 'POST', path, {
        rawBody: 'hello',
        headers: { 'Content-Type': 'text/plain' },
      });
      expect(plain.status).toBe(415);
      expect(plain.body).toEqual({
        status: 'failed',
        error: 'Unsupported content type "text/plain": send the body as application/json',
      });
      const empty = await request(laurel.url, 'POST', path);
      expect(empty.status).toBe(400);
    },
  );
});

describe('the X-API-KEY header', () => {
  // The documented text first, then how to get a key (test/integration/key-help.test.ts).
  it.each([
    ['missing', undefined, 'Missing API key: send it in the X-API-KEY header. Get a key: '],
    ['garbage', 'nope', 'Invalid API key. Get a key: '],
    ['unknown', `laurel_${'A'.repeat(43)}`, 'Invalid API key. Get a key: '],
  ])('answers 401 in Shape A when %s', async (_name, apiKey, error) => {
    for (const prefix of ['/v1', '/api/v1']) {
      const result = await request(laurel.url, 'GET', `${prefix}/keys`, { apiKey });
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ status: 'failed', error: expect.any(String) });
      expect((result.body as { error: string }).error.slice(0, error.length)).toBe(error);
    }
  });

  it('writes last_used_at at most once a minute', async () => {
    const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
    const [first] = await keysOf(laurel.url, apiKey);
    expect(first.last_used_at).toMatch(ISO);
    await sleep(20);
    const [second] = await keysOf(laurel.url, apiKey);
    expect(second.last_used_at).toBe(first.last_used_at);
    // A minute later it moves on (once the process looks the key up again: it remembers a valid
    // key for a second).
    await sql(
      laurel.databaseUrl,
      "UPDATE api_keys SET last_used_at = now() - interval '61 seconds' WHERE id = $1",
      [first.id],
    );
    await waitUntil('last_used_at to move on', async () => {
      const [third] = await keysOf(laurel.url, apiKey);
      return Date.parse(third.last_used_at ?? '') > Date.parse(first.last_used_at ?? '');
    });
  });
});

describe('revoking a key', () => {
  it('stops the key on the very next request', async () => {
    const wallet = Wallet.createRandom();
    const keep = await issueApiKey(laurel.url, wallet);
    const lose = await issueApiKey(laurel.url, wallet);
    const keys = await keysOf(laurel.url, keep);
    expect(keys.map((key) => key.prefix)).toEqual([keep.slice(0, 12), lose.slice(0, 12)]);
    const target = keys[1];
    expect((await request(laurel.url, 'GET', '/v1/keys', { apiKey: lose })).status).toBe(200);

    const revoked = await request(laurel.url, 'DELETE', `/v1/keys/${target.id}`, { apiKey: keep });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({
      status: 'success',
      key: { ...target, last_used_at: expect.stringMatching(ISO), revoked_at: expect.stringMatching(ISO) },
    });

    const refused = await request(laurel.url, 'GET', '/v1/keys', { apiKey: lose });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ status: 'failed', error: 'API key revoked' });
    const viaGraphQL = await graphql(laurel.url, '{ apiKeys { id } }', { apiKey: lose });
    expect(viaGraphQL.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');

    // Listed as revoked; revoking again changes nothing.
    const listed = await keysOf(laurel.url, keep);
    expect(listed[1].revoked_at).toBe((revoked.body.key as KeyListing).revoked_at);
    const again = await request(laurel.url, 'DELETE', `/api/v1/keys/${target.id}`, { apiKey: keep });
    expect(again.status).toBe(200);
    expect((again.body.key as KeyListing).revoked_at).toBe(listed[1].revoked_at);
  });

  it('can revoke the key in use', async () => {
    const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
    const [key] = await keysOf(laurel.url, apiKey);
    expect((await request(laurel.url, 'DELETE', `/v1/keys/${key.id}`, { apiKey })).status).toBe(200);
    expect((await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status).toBe(401);
  });

  it("cannot touch another account's key", async () => {
    const mine = await issueApiKey(laurel.url, Wallet.createRandom());
    const theirs = await issueApiKey(laurel.url, Wallet.createRandom());
    const [myKey] = await keysOf(laurel.url, mine);
    const attempt = await request(laurel.url, 'DELETE', `/v1/keys/${myKey.id}`, { apiKey: theirs });
    expect(attempt.status).toBe(404);
    expect(attempt.body).toEqual({ status: 'failed', error: 'API key not found' });
    expect(await keysOf(laurel.url, theirs)).toHaveLength(1);
    expect((await keysOf(laurel.url, mine))[0].revoked_at).toBeNull();

    const unknown = await request(laurel.url, 'DELETE', '/v1/keys/6f1c2a57-2b1e-4a56-9a4e-3f3f1b0b9b0c', {
      apiKey: mine,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 'failed', error: 'API key not found' });
  });

  it('answers a malformed id with 400 in Shape A', async () => {
    const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
    const result = await request(laurel.url, 'DELETE', '/v1/keys/42', { apiKey });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      status: 'failed',
      error: 'id: Invalid uuid',
      issues: [{ validation: 'uuid', code: 'invalid_string', path: ['id'], message: 'Invalid uuid' }],
    });
  });
});

describe('GraphQL', () => {
  const requestChallenge = `mutation ($public_address: String!) {
    requestApiKeyChallenge(public_address: $public_address) { challenge }
  }`;
  const verifyChallenge = `mutation ($signature: String!, $public_address: String!) {
    verifyApiKeyChallenge(signature: $signature, public_address: $public_address) { api_key }
  }`;

  it('issues, lists and revokes keys through the same operations', async () => {
    const wallet = Wallet.createRandom();
    const challenge = await graphql<{ requestApiKeyChallenge: { challenge: string } }>(
      laurel.url,
      requestChallenge,
      { variables: { public_address: wallet.address.toLowerCase() } },
    );
    expect(challenge.body.errors).toBeUndefined();
    const text = challenge.body.data!.requestApiKeyChallenge.challenge;
    expect(text.split('\n')[1]).toBe(wallet.address);

    const verified = await graphql<{ verifyApiKeyChallenge: { api_key: string } }>(
      laurel.url,
      verifyChallenge,
      {
        variables: { signature: await wallet.signMessage(text), public_address: wallet.address },
      },
    );
    expect(verified.body.errors).toBeUndefined();
    const apiKey = verified.body.data!.verifyApiKeyChallenge.api_key;

    const listed = await graphql<{ apiKeys: { id: string; prefix: string; revoked_at: string | null }[] }>(
      laurel.url,
      '{ apiKeys { id prefix revoked_at } }',
      { apiKey },
    );
    expect(listed.body.data!.apiKeys).toEqual([
      { id: expect.any(String), prefix: apiKey.slice(0, 12), revoked_at: null },
    ]);

    const revoked = await graphql<{ revokeApiKey: { id: string; revoked_at: string } }>(
      laurel.url,
      'mutation ($id: ID!) { revokeApiKey(id: $id) { id revoked_at } }',
      { apiKey, variables: { id: listed.body.data!.apiKeys[0].id } },
    );
    expect(revoked.body.errors).toBeUndefined();
    expect(revoked.body.data!.revokeApiKey.revoked_at).toMatch(ISO);
    expect((await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status).toBe(401);
  });

  it('answers UNAUTHENTICATED without a key, or with a bad one', async () => {
    for (const apiKey of [undefined, 'nope', `laurel_${'A'.repeat(43)}`]) {
      const result = await graphql(laurel.url, '{ apiKeys { id } }', { apiKey });
      expect(result.status).toBe(200);
      expect(result.body.data).toBeNull();
      expect(result.body.errors).toEqual([
        expect.objectContaining({
          path: ['apiKeys'],
          extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
        }),
      ]);
    }
    const revoke = await graphql(laurel.url, 'mutation { revokeApiKey(id: "x") { id } }');
    expect(revoke.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('reports a failed verification and bad input', async () => {
    const wallet = Wallet.createRandom();
    const failed = await graphql(laurel.url, verifyChallenge, {
      variables: { signature: `0x${'ab'.repeat(65)}`, public_address: wallet.address },
    });
    expect(failed.body.errors).toEqual([
      expect.objectContaining({
        message: 'Signature verification failed',
        extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
      }),
    ]);

    const invalid = await graphql(laurel.url, requestChallenge, { variables: { public_address: '0x12' } });
    expect(invalid.body.errors).toEqual([
      expect.objectContaining({
        extensions: expect.objectContaining({
          code: 'BAD_USER_INPUT',
          issues: [
            {
              validation: 'regex',
              code: 'invalid_string',
              path: ['public_address'],
              message: 'Invalid address',
            },
          ],
        }),
      }),
    ]);

    const apiKey = await issueApiKey(laurel.url, wallet);
    const badId = await graphql(laurel.url, 'mutation { revokeApiKey(id: "42") { id } }', { apiKey });
    expect(badId.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    const unknownId = await graphql(
      laurel.url,
      'mutation { revokeApiKey(id: "6f1c2a57-2b1e-4a56-9a4e-3f3f1b0b9b0c") { id } }',
      { apiKey },
    );
    expect(unknownId.body.errors?.[0]).toMatchObject({
      message: 'API key not found',
      extensions: { code: 'API_KEY_NOT_FOUND' },
    });
  });
});

describe('rate limiting', () => {
  const WINDOW_SECONDS = 3600;
  const MAX_REQUESTS = 4;
  let limited: TestLaurel;
  let second: Laurel | undefined;

  beforeAll(async () => {
    const env = {
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_MAX_REQUESTS: String(MAX_REQUESTS),
    };
    limited = await startTestLaurel({ worker: false, env });
    // A second Laurel process on the same database.
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: limited.databaseUrl,
      LOCAL_CHAIN: 'off',
      CHAINS: '[]',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...env,
    });
    second = await startLaurel(config, { log: createLogger(config.logLevel), worker: false });
  });
  afterAll(async () => {
    await second?.stop();
    await limited?.stop();
  });

  it('answers 429 with Retry-After in Shape A over the limit, per wallet (all its keys), shared by processes', async () => {
    const wallet = Wallet.createRandom();
    const apiKey = await issueApiKey(limited.url, wallet);
    const urls = [limited.url, second!.url];
    for (let i = 0; i < MAX_REQUESTS; i++) {
      const result = await request(urls[i % 2], 'GET', '/v1/keys', { apiKey });
      expect(result.status).toBe(200);
    }
    for (const url of urls) {
      const over = await request(url, 'GET', '/v1/keys', { apiKey });
      expect(over.status).toBe(429);
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
      expect(over.body).toEqual({ status: 'failed', error: 'Too many requests', retry_after: retryAfter });
    }
    const viaGraphQL = await graphql(second!.url, '{ apiKeys { id } }', { apiKey });
    expect(viaGraphQL.status).toBe(429);
    expect(viaGraphQL.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(viaGraphQL.body.errors?.[0].extensions?.code).toBe('RATE_LIMITED');

    // Another key of the same wallet shares the budget: keys are free, the budget is not.
    const other = await issueApiKey(second!.url, wallet);
    expect((await request(limited.url, 'GET', '/v1/keys', { apiKey: other })).status).toBe(429);
    // Another wallet has its own.
    const stranger = await issueApiKey(limited.url, Wallet.createRandom());
    expect((await request(second!.url, 'GET', '/v1/keys', { apiKey: stranger })).status).toBe(200);

    // The next window starts afresh (in a process that has not seen the refusals: a refusing
    // process remembers the block in memory until the window ends).
    const [row] = await sql<{ key: string }>(
      limited.databaseUrl,
      `UPDATE rate_limits SET expire = 0 WHERE key = $1 RETURNING key`,
      [`wallet:${wallet.address}`],
    );
    expect(row).toBeDefined();
    const third = await startLaurel(
      loadConfig({
        PORT: '0',
        DATABASE_URL: limited.databaseUrl,
        LOCAL_CHAIN: 'off',
        CHAINS: '[]',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
        RATE_LIMIT_MAX_REQUESTS: String(MAX_REQUESTS),
      }),
      { log: createLogger('silent'), worker: false },
    );
    try {
      expect((await request(third.url, 'GET', '/v1/keys', { apiKey })).status).toBe(200);
    } finally {
      await third.stop();
    }
  });
});

describe('maintenance__prune', () => {
  it('is on the crontab', () => {
    expect(parseCrontab(crontab).map((item) => item.task)).toContain('maintenance__prune');
  });

  it('deletes rate-limit budgets whose window ended over an hour ago, and old challenges', async () => {
    const db = laurel.databaseUrl;
    await sql(db, 'DELETE FROM rate_limits');
    const now = Date.now();
    await sql(
      db,
      `INSERT INTO rate_limits (key, points, expire) VALUES
        ('wallet:old', 5, $1), ('wallet:recent', 5, $2), ('wallet:open', 5, $3)`,
      [now - 2 * 3600_000, now - 60_000, now + 60_000],
    );
    const address = Wallet.createRandom().address;
    await sql(
      db,
      `INSERT INTO api_key_challenges (address, nonce, message, expires_at, consumed_at, created_at) VALUES
        ($1, 'n-old-expired', 'm', now() - interval '2 days', NULL, now() - interval '2 days'),
        ($1, 'n-old-consumed', 'm', now() + interval '1 year', now() - interval '2 days', now() - interval '2 days'),
        ($1, 'n-recent-expired', 'm', now() - interval '1 hour', NULL, now() - interval '1 hour'),
        ($1, 'n-open', 'm', now() + interval '10 minutes', NULL, now())`,
      [address],
    );

    await runJobOnce(laurel, jobs.prune, {});

    const budgets = await sql<{ key: string }>(db, 'SELECT key FROM rate_limits ORDER BY key');
    expect(budgets.map((row) => row.key)).toEqual(['wallet:open', 'wallet:recent']);
    const challenges = await sql<{ nonce: string }>(
      db,
      'SELECT nonce FROM api_key_challenges WHERE address = $1 ORDER BY nonce',
      [address],
    );
    expect(challenges.map((row) => row.nonce)).toEqual(['n-open', 'n-recent-expired']);
  });
});
