import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * The examples run as they are, against a running Laurel, with the client package as this project's
 * build makes it (packages/client/dist: jest.config.js lists this file under SERVICE).
 */
const root = path.resolve(__dirname, '../..');
let laurel: TestLaurel;
let scratch: string;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-quickstart-'));
});
afterAll(async () => {
  await laurel?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function quickstart(env: Record<string, string>) {
  return promisify(execFile)(process.execPath, ['examples/quickstart.mjs'], {
    cwd: root,
    // The key file goes to a scratch folder, never to the checkout's .data.
    env: { ...process.env, QUICKSTART_KEY_FILE: path.join(scratch, 'keys.json'), CHAIN: 'local', ...env },
    timeout: 60_000,
  });
}

async function activeKeys(apiKey: string): Promise<number> {
  const answer = await request(laurel.url, 'GET', '/v1/keys', { apiKey });
  expect(answer.status).toBe(200);
  return (answer.body as { keys: { revoked_at: string | null }[] }).keys.filter((key) => !key.revoked_at)
    .length;
}

it('node examples/quickstart.mjs gets a key, creates an app and prints its id', async () => {
  const wallet = laurel.chain!.wallets[5];
  const { stdout } = await quickstart({ LAUREL_URL: laurel.url, PRIVATE_KEY: wallet.privateKey });
  expect(stdout).toContain(`API key for ${wallet.address}: laurel_`);
  expect(stdout).toMatch(/transaction 0x[0-9a-f]{64} mined in block \d+/);
  expect(stdout).toMatch(/app id \(app_id\): 0x[0-9a-fA-F]{40}\n/);
});

it('prints the whole key once, reuses it on the next runs, and gets a new one when it is revoked', async () => {
  const wallet = laurel.chain!.wallets[6];
  const env = { LAUREL_URL: laurel.url, PRIVATE_KEY: wallet.privateKey };
  const first = await quickstart(env);
  const apiKey = /API key for 0x[0-9a-fA-F]{40}: (laurel_\S+)\n/.exec(first.stdout)![1];
  const kept = JSON.parse(readFileSync(path.join(scratch, 'keys.json'), 'utf8')) as Record<string, string>;
  expect(kept[`${laurel.url} ${wallet.address.toLowerCase()} full`]).toBe(apiKey);

  const second = await quickstart(env);
  expect(second.stdout).toContain(
    `API key for ${wallet.address}: ${apiKey.slice(0, 14)}… (kept from an earlier run`,
  );
  expect(second.stdout).not.toContain(apiKey);
  expect(second.stdout).toMatch(/app id \(app_id\): 0x[0-9a-fA-F]{40}\n/);
  expect(await activeKeys(apiKey)).toBe(1);

  const { keys } = (await request(laurel.url, 'GET', '/v1/keys', { apiKey })).body as {
    keys: { id: string }[];
  };
  await request(laurel.url, 'DELETE', `/v1/keys/${keys[0].id}`, { apiKey });
  const third = await quickstart(env);
  expect(third.stdout).toContain('the kept key is no longer accepted');
  const newKey = /API key for 0x[0-9a-fA-F]{40}: (laurel_\S+)\n/.exec(third.stdout)![1];
  expect(newKey).not.toBe(apiKey);
  expect(await activeKeys(newKey)).toBe(1);
});

it('waits out a 429 for as long as Retry-After says', async () => {
  // In front of Laurel: the first request answers 429 with Retry-After: 1, the others pass through.
  let refused = false;
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (!refused) {
        refused = true;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ status: 'failed', error: 'Too many requests' }));
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (req.headers['x-api-key']) headers['x-api-key'] = String(req.headers['x-api-key']);
      void fetch(laurel.url + req.url, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const started = Date.now();
    const { stdout } = await quickstart({
      LAUREL_URL: url,
      PRIVATE_KEY: laurel.chain!.wallets[7].privateKey,
    });
    expect(stdout).toContain('Laurel asks to wait (429); retrying in 1 s');
    expect(stdout).toMatch(/app id \(app_id\): 0x[0-9a-fA-F]{40}\n/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  } finally {
    proxy.close();
  }
});

it('says in one line when no Laurel answers', async () => {
  // Port 1 (tcpmux), where nothing listens. Not a port freed a moment ago: a server of another
  // test file, listening on port 0, could be given it meanwhile (it happened in CI), whereas
  // port 0 only ever gives ports of the ephemeral range (32768 and up on Linux).
  const url = 'http://127.0.0.1:1';
  await expect(quickstart({ LAUREL_URL: url })).rejects.toMatchObject({
    code: 1,
    stderr: `no Laurel answers at ${url}: start it with npm start\n`,
  });
});

it('stops in one line naming what failed: a chain Laurel does not serve, a refusal with its body', async () => {
  await expect(quickstart({ LAUREL_URL: laurel.url, CHAIN: 'no-such-chain' })).rejects.toMatchObject({
    code: 1,
    stderr: `Laurel at ${laurel.url} serves no chain "no-such-chain" (it serves: local)\n`,
  });
  // A wallet with no ETH: Laurel refuses it, and the example prints its answer as sent.
  await expect(
    quickstart({ LAUREL_URL: laurel.url, PRIVATE_KEY: Wallet.createRandom().privateKey }),
  ).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^POST \/v1\/\S+ answered 4\d\d: \{.*\}\n$/),
  });
});

it('node examples/subscribe.mjs prints the caller’s profile as its subscription pushes it', async () => {
  const wallet = laurel.chain!.wallets[7];
  const apiKey = await issueApiKey(laurel.url, wallet);
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/subscribe.mjs'], {
    cwd: root,
    env: { ...process.env, LAUREL_URL: laurel.url, LAUREL_API_KEY: apiKey, PUSHES: '1' },
    timeout: 60_000,
  });
  expect(JSON.parse(stdout)).toEqual({ user_id: wallet.address, xp_balance: '0', completed_actions: [] });
});

it('node examples/subscribe.mjs without a key says in one line how to get one', async () => {
  const env: Record<string, string | undefined> = { ...process.env, LAUREL_URL: laurel.url };
  delete env.LAUREL_API_KEY;
  await expect(
    promisify(execFile)(process.execPath, ['examples/subscribe.mjs'], { cwd: root, env, timeout: 60_000 }),
  ).rejects.toMatchObject({
    code: 1,
    stdout: '',
    stderr: expect.stringMatching(
      /^set LAUREL_API_KEY to an API key: .*laurel key --dev-account 0.*signIn[^\n]*\n$/,
    ),
  });
});

it('node examples/subscribe.mjs with a refused key stops in one line', async () => {
  await expect(
    promisify(execFile)(process.execPath, ['examples/subscribe.mjs'], {
      cwd: root,
      env: { ...process.env, LAUREL_URL: laurel.url, LAUREL_API_KEY: 'laurel_not_a_key' },
      timeout: 60_000,
    }),
  ).rejects.toMatchObject({
    code: 1,
    stderr:
      'Laurel refused the API key (4401 Invalid API key): sign in again for a new key (signIn, or `laurel key`)\n',
  });
});
