import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  builtFile,
  makeDataDir,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
} from '../helpers/laurel-process';

/**
 * `npm run demo` (dist/scripts/demo.js) against Laurel as `npm start` runs it: a development setup
 * on its own local chain, which trusts the development CA of its data folder.
 */
const root = path.resolve(__dirname, '../..');
let dataDir: string;
let laurel: StartedLaurel;

beforeAll(async () => {
  dataDir = makeDataDir();
  // Without the test CA: only the development CA it creates can make the demo's receiver trusted.
  laurel = await startLaurelProcess(dataDir, { NODE_EXTRA_CA_CERTS: '' });
}, 120_000);

afterAll(async () => {
  if (laurel) await stopLaurelProcess(laurel, 'SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

function demo(...args: string[]) {
  return promisify(execFile)(process.execPath, [builtFile('scripts/demo.js'), '--url', laurel.url, ...args], {
    cwd: root,
    timeout: 90_000,
  });
}

it('runs the whole flow, one line per step, and cleans up after itself', async () => {
  const { stdout } = await demo('--data-dir', dataDir);
  const steps = stdout.split('\n').filter((line) => /^\s*\d+\. /.test(line));
  expect(steps.map((line) => line.replace(/^\s*\d+\.\s+/, '').replace(/\s{2,}.*$/, ''))).toEqual([
    'API key from a signed challenge',
    'create an app',
    'start an HTTPS webhook receiver',
    'read the webhook secret',
    'register the webhook',
    'verify the webhook (challenge)',
    'create a badge',
    'create a credit token',
    'reward 50 XP',
    'its transaction event arrived',
    'reward the Explorer badge',
    'its transaction event arrived',
    'reward 25 DMC credit (minted)',
    'its transaction event arrived',
    "the user's profile in the app",
    "the app's XP leaderboard",
    'delete the webhook',
    'revoke the API key',
  ]);
  for (const line of steps) expect(line).toMatch(/ \d+ ms {2}/);
  expect(stdout).toContain('answered the challenge; disabled: false');
  expect(stdout.match(/x-laurel-signature and webhook-signature \(Standard Webhooks\) valid/g)).toHaveLength(
    3,
  );
  expect(stdout).toContain('"xp_balance": "50"');
  expect(stdout).toContain('"token_balance_formatted": "25"');
  expect(stdout).toMatch(/"user": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",\s+"xp_rewarded": "50"/);
  expect(stdout).toContain('Done: every step above went through the running Laurel.');

  // Run again: the key of the first run was revoked, so the wallet's key limit is never reached.
  const again = await demo('--data-dir', dataDir);
  expect(again.stdout).toContain('Done:');
}, 180_000);

it('stops with the server’s answer and exit code 1 when a step fails', async () => {
  await expect(demo('--data-dir', dataDir, '--chain', 'nowhere')).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining(
      'demo failed: POST /v1/app/new answered 400: {"status":"failed","error":"chain: Unknown chain',
    ),
  });
}, 60_000);

it('says where the development CA should be when the data folder has none', async () => {
  const elsewhere = makeDataDir();
  try {
    await expect(demo('--data-dir', elsewhere)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`no development CA in ${path.join(elsewhere, 'webhook-dev-ca')}`),
    });
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
}, 60_000);
