/**
 * The README's copy-paste webhook receiver ("First integration", step 6) runs as written, as its own
 * Node process, against a real Laurel: Laurel verifies it through its challenge answer, and it
 * prints a transaction's receipt. `@laurel/client` is the package's source bundled by esbuild with its
 * dependencies (the test's folder has no node_modules), the certificate one of the test CA in `.data/dev-cert/`, where
 * `npm run dev:cert` writes it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { Laurel, signIn } from '../../packages/client/src/index';
import { freePort } from '../../src/embedded/ports';
import { createServerCertificate } from '../../src/modules/webhooks/certificates';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { testCa } from '../helpers/test-ca';
import { waitUntil } from '../helpers/wait';

const root = path.resolve(__dirname, '../..');

function readmeReceiver(): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const step = /^\*\*6\. Receive webhooks\.\*\*[\s\S]*?^```js\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  if (!step) throw new Error('README.md has no receiver in "6. Receive webhooks"');
  return step;
}

let laurel: TestLaurel;
let folder: string;
let receiver: ChildProcess | undefined;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  folder = mkdtempSync(path.join(tmpdir(), 'laurel-readme-receiver-'));
});

afterAll(async () => {
  receiver?.kill();
  await laurel?.stop();
  rmSync(folder, { recursive: true, force: true });
});

it('the README receiver verifies calls, answers the challenge and prints a receipt', async () => {
  await build({
    entryPoints: [path.join(root, 'packages/client/src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: path.join(folder, 'client.mjs'),
    logLevel: 'silent',
  });
  const { cert, key } = await createServerCertificate(testCa());
  mkdirSync(path.join(folder, '.data/dev-cert'), { recursive: true });
  writeFileSync(path.join(folder, '.data/dev-cert/cert.pem'), cert);
  writeFileSync(path.join(folder, '.data/dev-cert/key.pem'), key);
  writeFileSync(
    path.join(folder, 'receiver.mjs'),
    readmeReceiver().replace("'@laurel/client'", "'./client.mjs'"),
  );

  const owner = laurel.chain!.wallets[5]!;
  const client = new Laurel({ url: laurel.url });
  await signIn(client, owner);
  const { webhook_secret } = await client.call(client.api.GET('/v1/webhook/secret'));
  const port = await freePort();
  let output = '';
  receiver = spawn(process.execPath, ['receiver.mjs'], {
    cwd: folder,
    env: { PATH: process.env.PATH, LAUREL_WEBHOOK_SECRET: webhook_secret, PORT: String(port) },
  });
  receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitUntil('the receiver started', () => output.includes(`receiver on https://127.0.0.1:${port}/`));

  const { webhook } = await client.call(
    client.api.POST('/v1/webhook', { body: { url: `https://127.0.0.1:${port}/` } }),
  );
  const tested = await client.call(
    client.api.POST('/v1/webhook/{id}/test', { params: { path: { id: String(webhook.id) } } }),
  );
  expect(tested.webhook.disabled).toBe(false);

  const signer = owner.connect(laurel.chain!.provider);
  const populated = await signer.populateTransaction({ to: owner.address, value: 1n });
  const executed = (await client.call(
    client.api.POST('/v1/transactions/execute-and-wait', {
      body: { chain: 'local', signed_transaction: await signer.signTransaction(populated) },
    }),
  )) as { transactionHash: string };
  await waitUntil('the receipt printed', () =>
    new RegExp(`^transaction evt_[0-9a-f]{32} ${executed.transactionHash} status 1$`, 'm').test(output),
  );
  expect(output).not.toMatch(/refused/);
});
