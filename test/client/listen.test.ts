/**
 * `laurel listen` against a real Laurel (its own anvil): the receiver registers and verifies itself,
 * prints a transaction's event with its signature checked, forwards calls to a local HTTP server
 * with their headers and raw body, and deletes its webhook when stopped. Its certificate is signed by
 * the test CA, which the test process (Laurel's HTTPS client) trusts as a development setup trusts
 * the development CA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Wallet } from 'ethers';
import { Laurel, signIn, verifyWebhook } from '../../packages/client/src/index';
import { runCli } from '../../packages/client/src/cli/run';
import { createServerCertificate } from '../../src/modules/webhooks/certificates';
import { client as flowClient, createApp, type Unsigned } from '../helpers/flow';
import { selfTransfer } from '../helpers/client';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { testCa } from '../helpers/test-ca';
import { waitUntil } from '../helpers/wait';

let laurel: TestLaurel;
let client: Laurel;
let owner: Wallet;
let folder: string;
let certFile: string;
let keyFile: string;
let appId: string;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  owner = laurel.chain!.wallets[4]!;
  client = new Laurel({ url: laurel.url });
  await signIn(client, owner);
  appId = await createApp(flowClient(laurel.url, client.apiKey, owner), 'listen');
  folder = mkdtempSync(path.join(tmpdir(), 'laurel-listen-'));
  const { cert, key } = await createServerCertificate(testCa());
  certFile = path.join(folder, 'cert.pem');
  keyFile = path.join(folder, 'key.pem');
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key);
});

afterAll(async () => {
  await laurel?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** `laurel listen <args>` run in-process, as the bin runs it; `stop()` is its Ctrl-C. */
function startListen(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const exit = runCli(['listen', ...args], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { LAUREL_URL: laurel.url, LAUREL_API_KEY: client.apiKey },
    stopped,
  });
  const line = (pattern: RegExp) =>
    waitUntil(`a line ${pattern}`, () => out.find((text) => pattern.test(text)), 20_000);
  return { out, err, exit, stop, line };
}

const transact = () => selfTransfer(client, owner);

/** A reward of 10 XP built by Laurel, signed by the owner and executed; resolves when Laurel has answered. */
async function reward(): Promise<string> {
  const built = await client.call(
    client.api.POST('/v1/reward/XP', {
      body: {
        chain: 'local',
        app_id: appId,
        action_id: 'listened',
        receiver: laurel.chain!.wallets[6]!.address,
        amount: 10,
      },
    }),
  );
  const receipt = await flowClient(laurel.url, client.apiKey, owner).execute(
    built.unsignedTransaction as unknown as Unsigned,
  );
  return (receipt as typeof receipt & { hash: string }).hash;
}

const webhookCount = async () => (await client.call(client.api.GET('/v1/webhooks'))).webhooks.length;

describe('laurel listen', () => {
  it("registers and verifies itself, prints a reward's transaction event verified within a second, and deletes its webhook on Ctrl-C", async () => {
    const listening = startListen(['--cert', certFile, '--key', keyFile]);
    const ready = await listening.line(
      /^listening on https:\/\/127\.0\.0\.1:\d+\/: webhook #\d+ is verified/,
    );
    const id = /#(\d+)/.exec(ready)![1];
    expect(await webhookCount()).toBe(1);

    const hash = await reward();
    const answered = Date.now();
    const printed = await listening.line(new RegExp(hash));
    const elapsed = Date.now() - answered;
    expect(printed).toMatch(
      new RegExp(`Z transaction evt_[0-9a-f]{32} ${hash} status 1 block \\d+ \\(signature verified\\)$`),
    );
    expect(elapsed).toBeLessThan(1000);

    listening.stop();
    expect(await listening.exit).toBe(0);
    expect(listening.out.at(-1)).toBe(`deleted webhook #${id}`);
    expect(listening.err).toEqual([]);
    expect(await webhookCount()).toBe(0);
  });

  it('forwards each verified call to a local URL with its headers and raw body, and prints the answer', async () => {
    const forwarded: { headers: IncomingHttpHeaders; body: string }[] = [];
    const local = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        forwarded.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
        response.writeHead(202, { 'content-type': 'text/plain' }).end('queued');
      });
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(local.address() as AddressInfo).port}/webhooks/laurel`;
    const listening = startListen(['--cert', certFile, '--key', keyFile, '--forward-to', target]);
    try {
      await listening.line(
        /is verified; calls print here and go to http:\/\/127\.0\.0\.1:\d+\/webhooks\/laurel/,
      );
      const hash = await transact();
      await listening.line(new RegExp(`^  -> POST ${target} answered 202: queued$`));
      expect(forwarded).toHaveLength(1); // the event, not the test call listen answered itself
      const [call] = forwarded;
      expect(call!.headers).toMatchObject({
        'user-agent': expect.stringMatching(/^Laurel-Webhooks\//),
        'content-type': 'application/json',
        'webhook-id': expect.stringMatching(/^evt_/),
      });
      // The original signatures still verify the forwarded body: nothing was re-serialised.
      const { webhook_secret } = await client.call(client.api.GET('/v1/webhook/secret'));
      const event = await verifyWebhook(call!.body, call!.headers, { secret: webhook_secret });
      expect(event).toMatchObject({ event: 'transaction', payload: { hash } });
    } finally {
      listening.stop();
      await listening.exit;
      local.closeAllConnections();
      await new Promise((resolve) => local.close(resolve));
    }
    expect(await webhookCount()).toBe(0);
  });

  it('says how to get a certificate Laurel trusts when there is none', async () => {
    const listening = startListen(['--cert', path.join(folder, 'missing.pem'), '--key', keyFile]);
    expect(await listening.exit).toBe(1);
    expect(listening.err).toEqual([
      `laurel listen: no certificate at ${path.join(folder, 'missing.pem')}: run \`npm run dev:cert\` in the Laurel checkout (it writes a certificate signed by the development CA Laurel trusts), or pass --cert <file>`,
    ]);
  });

  it('deletes its webhook and says why when Laurel cannot verify it (a certificate Laurel does not trust)', async () => {
    const { cert, key } = await createServerCertificate(null);
    writeFileSync(path.join(folder, 'self.pem'), cert);
    writeFileSync(path.join(folder, 'self.key'), key);
    const listening = startListen([
      '--cert',
      path.join(folder, 'self.pem'),
      '--key',
      path.join(folder, 'self.key'),
    ]);
    expect(await listening.exit).toBe(1);
    expect(listening.err[0]).toMatch(
      /^laurel listen: Laurel could not verify https:\/\/127\.0\.0\.1:\d+\/: POST \/v1\/webhook\/\d+\/test answered 422: certificate error: .*\(breaks rule 1\)/,
    );
    expect(listening.out.at(-1)).toMatch(/^deleted webhook #\d+$/);
    expect(await webhookCount()).toBe(0);
  });
});
