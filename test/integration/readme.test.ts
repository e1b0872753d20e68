import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * The README's "First integration" runs as written: its shell blocks, in order, in one bash
 * session against a started Laurel (only the URL is changed), from a key to a rewarded user read
 * back over REST and GraphQL.
 */
const root = path.resolve(__dirname, '../..');
const haveCurl = spawnSync('curl', ['--version']).status === 0;
if (!haveCurl) console.warn('curl is not installed: the README walkthrough test is skipped');

function firstIntegrationScript(url: string): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = /^## First integration\n([\s\S]*?)^## /m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "## First integration" section');
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  const script = blocks.join('\n');
  if (!script.includes('LAUREL=http://127.0.0.1:4000'))
    throw new Error('the walkthrough no longer sets LAUREL');
  return script.replace('LAUREL=http://127.0.0.1:4000', `LAUREL=${url}`);
}

let laurel: TestLaurel;
beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
});
afterAll(async () => {
  await laurel?.stop();
});

(haveCurl ? it : it.skip)('the first integration rewards a user and reads the profile back', async () => {
  const { stdout } = await promisify(execFile)(
    'bash',
    ['-c', `set -eo pipefail\n${firstIntegrationScript(laurel.url)}`],
    { cwd: root, timeout: 60_000 },
  );
  const lines = stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^laurel_\S+$/); // echo "$KEY"
  expect(stdout).toContain('"unsignedTransaction":{');
  expect(stdout).toContain('"name":"My first app"');
  expect(lines).toContain('success'); // the reward's execute-and-wait
  const profile = JSON.parse(lines.at(-2)!) as Record<string, unknown>;
  expect(profile).toMatchObject({
    user_id: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    xp_balance: '10',
    completed_actions: [{ name: 'signed-up', xp_rewarded: '10' }],
  });
  expect(JSON.parse(lines.at(-1)!)).toEqual({
    data: { profile: { xp_balance: '10', completed_actions: [{ name: 'signed-up', xp_rewarded: '10' }] } },
  });
});
