import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

/** The README's client code runs as it is, against a running Laurel. */
const root = path.resolve(__dirname, '../..');
let laurel: TestLaurel;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
});
afterAll(async () => {
  await laurel?.stop();
});

it('node examples/quickstart.mjs gets a key, creates an app and prints its id', async () => {
  const wallet = laurel.chain!.wallets[5];
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/quickstart.mjs'], {
    cwd: root,
    env: { ...process.env, LAUREL_URL: laurel.url, CHAIN: 'local', PRIVATE_KEY: wallet.privateKey },
    timeout: 60_000,
  });
  expect(stdout).toContain(`API key for ${wallet.address}: laurel_`);
  expect(stdout).toMatch(/transaction 0x[0-9a-f]{64} mined in block \d+/);
  expect(stdout).toMatch(/app id \(app_id\): 0x[0-9a-fA-F]{40}\n/);
});

it('stops with the server’s error body when a call fails', async () => {
  const failed = promisify(execFile)(process.execPath, ['examples/quickstart.mjs'], {
    cwd: root,
    env: { ...process.env, LAUREL_URL: laurel.url, CHAIN: 'no-such-chain' },
    timeout: 60_000,
  });
  await expect(failed).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining(
      'POST /v1/app/new answered 400: {"status":"failed","error":"chain: Unknown chain',
    ),
  });
});
