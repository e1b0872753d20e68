import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * The packed client works where an app installs it: `npm pack` of packages/client (as built:
 * jest.config.js SERVICE), extracted into an empty app's node_modules beside links to only what its
 * package.json declares (dependencies and peers, from this checkout's install: no network), then
 * imported from a plain Node ESM file that signs in and receives a subscription's push from a real
 * Laurel, and its `bin` run. `npm install <tarball>` would do the same from the registry; the
 * figures of that install are in packages/client/README.md.
 */
const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);
let laurel: TestLaurel;
let scratch: string;
let app: string;
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-client-install-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
    cwd: path.join(root, 'packages/client'),
    env: { ...process.env, npm_config_cache: path.join(scratch, 'npm-cache') },
  });
  [packed] = JSON.parse(stdout) as [typeof packed];
  const tarball = path.join(scratch, packed.filename);

  app = path.join(scratch, 'app');
  const installed = path.join(app, 'node_modules/@laurel/client');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  // What the app's npm install would add: the declared dependencies and peers, and `ws`, the
  // WebSocket an app passes on Node 20.
  for (const name of [
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.peerDependencies),
    'ws',
  ]) {
    symlinkSync(path.join(root, 'node_modules', name), path.join(app, 'node_modules', name));
  }
  writeFileSync(path.join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
}, 120_000);

afterAll(async () => {
  await laurel?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

it('packs the built library, its types and the command, and nothing else', () => {
  const files = packed.files.map((file) => file.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'package.json',
      'README.md',
      'bin/laurel.js',
      'dist/index.js',
      'dist/index.d.ts',
    ]),
  );
  expect(
    files.filter((file) => !/^(package\.json|README\.md|bin\/laurel\.js|dist\/.*\.(js|d\.ts))$/.test(file)),
  ).toEqual([]);
});

it('an app imports it from plain Node ESM, signs in, and receives a push', async () => {
  writeFileSync(
    path.join(app, 'main.mjs'),
    `import { Wallet } from 'ethers';
import WebSocket from 'ws';
import { Laurel, LaurelSubscriptions, signIn } from '@laurel/client';
import { fileKeyStore } from '@laurel/client/node';

const laurel = new Laurel({ url: process.env.LAUREL_URL });
const wallet = Wallet.createRandom();
await signIn(laurel, wallet, { store: fileKeyStore('keys.json') });
const { keys } = await laurel.call(laurel.api.GET('/v1/keys'));
console.log('keys', keys.length);
const live = new LaurelSubscriptions(laurel, { webSocket: WebSocket });
for await (const profile of live.iterate('profileChanged', { chain: 'local' }, { user_id: true, xp_balance: true })) {
  console.log('profile', profile.user_id === wallet.address, profile.xp_balance);
  break;
}
await live.dispose();
`,
  );
  const { stdout } = await run(process.execPath, ['main.mjs'], {
    cwd: app,
    env: { ...process.env, LAUREL_URL: laurel.url },
    timeout: 30_000,
  });
  expect(stdout).toBe('keys 1\nprofile true 0\n');
});

it('its `laurel` bin runs: help lists the commands', async () => {
  const { bin } = JSON.parse(
    readFileSync(path.join(app, 'node_modules/@laurel/client/package.json'), 'utf8'),
  ) as {
    bin: { laurel: string };
  };
  const { stdout } = await run(
    process.execPath,
    [path.join(app, 'node_modules/@laurel/client', bin.laurel), 'help'],
    {
      cwd: app,
    },
  );
  expect(stdout).toMatch(/^usage: laurel <command>/);
  expect(stdout).toMatch(/^ {2}key +get an API key/m);
});
