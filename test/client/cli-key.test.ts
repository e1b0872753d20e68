import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Laurel } from '../../packages/client/src/index';
import { runCli } from '../../packages/client/src/cli/run';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * `laurel key` against a real Laurel: through runCli with captured output, and once as the built
 * command (packages/client/dist/cli.js, which this project's build makes: jest.config.js SERVICE).
 */
const root = path.resolve(__dirname, '../..');
let laurel: TestLaurel;
let scratch: string;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-cli-key-'));
});
afterAll(async () => {
  await laurel?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { LAUREL_URL: laurel.url, ...env },
    stopped: new Promise(() => undefined),
  });
  return { code, out, err };
}

/** The keys Laurel lists for the wallet of `apiKey`. */
async function keysOf(apiKey: string) {
  const client = new Laurel({ url: laurel.url, apiKey });
  return (await client.call(client.api.GET('/v1/keys'))).keys;
}

it('--dev-account N signs with account N of the dev mnemonic and prints the key alone', async () => {
  const { code, out, err } = await cli(['key', '--dev-account', '4']);
  expect(code).toBe(0);
  expect(out).toEqual([expect.stringMatching(/^laurel_\S+$/)]);
  const address = laurel.chain!.wallets[4]!.address;
  expect(err).toEqual([`a new key for ${address} from ${laurel.url}`]);
  expect(await keysOf(out[0]!)).toHaveLength(1);
});

it('LAUREL_PRIVATE_KEY, --read-only and --expires-in ask for a read-only key that expires', async () => {
  const wallet = laurel.chain!.wallets[5]!;
  const before = Date.now();
  const { code, out, err } = await cli(['key', '--read-only', '--expires-in', '2h'], {
    LAUREL_PRIVATE_KEY: wallet.privateKey,
  });
  expect(code).toBe(0);
  expect(err[0]).toBe(`a new read-only key for ${wallet.address} from ${laurel.url}, expiring in 7200 s`);
  const [key] = await keysOf(out[0]!);
  expect(key).toMatchObject({ scope: 'read' });
  const expires = Date.parse(key!.expires_at!);
  expect(expires).toBeGreaterThanOrEqual(before + 7_200_000 - 2_000);
  expect(expires).toBeLessThanOrEqual(Date.now() + 7_200_000 + 2_000);
});

it('--key-file keeps the key (mode 0600), reuses it, and gets a new one once it is revoked', async () => {
  const file = path.join(scratch, 'nested', 'keys.json');
  const first = await cli(['key', '--dev-account', '6', '--key-file', file]);
  expect(first.err[0]).toMatch(/, kept in .*keys\.json \(mode 0600\)$/);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(Object.values(JSON.parse(readFileSync(file, 'utf8')) as object)).toEqual([first.out[0]]);

  const second = await cli(['key', '--dev-account', '6', '--key-file', file]);
  expect(second.out).toEqual(first.out);
  expect(second.err[0]).toMatch(/^the key of 0x[0-9a-fA-F]{40} kept in .*keys\.json, still accepted by /);

  const client = new Laurel({ url: laurel.url, apiKey: first.out[0] });
  const [kept] = await keysOf(first.out[0]!);
  await client.call(client.api.DELETE('/v1/keys/{id}', { params: { path: { id: kept!.id } } }));
  const third = await cli(['key', '--dev-account', '6', '--key-file', file]);
  expect(third.out[0]).not.toBe(first.out[0]);
  expect(third.err[0]).toMatch(/^a new key for /);
});

it('refuses in one line what it cannot use', async () => {
  const cases: [string[], string][] = [
    [
      ['key'],
      'laurel key: no wallet: give --private-key 0x… (or LAUREL_PRIVATE_KEY), or --dev-account N for a local chain',
    ],
    [
      ['key', '--private-key', '0x12'],
      'laurel key: the private key is not one: give 64 hex digits, with or without 0x',
    ],
    [['key', '--dev-account', 'x'], 'laurel key: --dev-account x: give 0, 1, 2, …'],
    [
      ['key', '--dev-account', '1', '--expires-in', 'soon'],
      'laurel key: --expires-in soon: give seconds (3600) or a number with s, m, h or d (12h)',
    ],
    [
      ['key', '--dev-account', '1', '--private-key', '0x12'],
      'laurel key: give --private-key or --dev-account, not both',
    ],
    [
      ['key', '--nope'],
      expect.stringMatching(/^laurel key: Unknown option '--nope'.*\(laurel key --help lists/),
    ],
    [
      ['key', '--dev-account', '1', '--url', 'http://127.0.0.1:9'],
      expect.stringMatching(/^laurel key: no Laurel answers at http:\/\/127\.0\.0\.1:9/),
    ],
  ];
  for (const [args, message] of cases) {
    const { code, out, err } = await cli(args);
    expect({ args, code, out, err }).toEqual({ args, code: 1, out: [], err: [message] });
  }
});

it('runs as the checkout’s `laurel` command (node_modules/.bin, what npx runs): help, then a key on stdout', async () => {
  // npm links the workspace's bin at install, before the build: bin/laurel.js exists by then.
  const run = (args: string[]) =>
    promisify(execFile)(path.join(root, 'node_modules/.bin/laurel'), args, {
      env: { ...process.env, LAUREL_URL: laurel.url },
      timeout: 30_000,
    });
  const help = await run(['help']);
  expect(help.stdout).toMatch(/^ {2}key +get an API key by signing/m);
  const { stdout, stderr } = await run(['key', '--dev-account', '7']);
  expect(stdout).toMatch(/^laurel_\S+\n$/);
  expect(stderr).toBe(`a new key for ${laurel.chain!.wallets[7]!.address} from ${laurel.url}\n`);
});
