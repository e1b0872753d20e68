// `npm install`'s last step: generate the Prisma client, then compile the service to dist/, so that
// the first `npm start` of a fresh clone finds dist/ up to date (`tsc -b` then checks in about 0.2 s
// instead of compiling for 10-20 s).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (args) =>
  spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });

const generated = run([path.join(root, 'scripts/prisma-generate.mjs')]);
if (generated.status !== 0) process.exit(generated.status ?? 1);

const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
if (!existsSync(tsc)) {
  // e.g. `npm install --omit=dev`: nothing to compile with; dist/ is whatever was shipped.
  console.log('laurel: TypeScript is not installed, dist/ left as it is');
  process.exit(0);
}
const started = performance.now();
const compiled = run([tsc, '-b', 'tsconfig.build.json']);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (compiled.status === 0) {
  console.log(`laurel: compiled to dist/ in ${seconds} s (npm start recompiles only what changes)`);
  // The client's browser bundle, which the Playground's "Sign in with a wallet" loads.
  const bundled = run([path.join(root, 'packages/client/scripts/browser-bundle.mjs')]);
  if (bundled.status !== 0)
    console.log(`laurel: the client's browser bundle failed (above); npm start will try again`);
} else {
  // The install itself succeeded: a source that does not compile is reported again by npm start
  // and npm run typecheck, where it is fixed.
  console.log(`laurel: the sources do not compile (above); npm start will try again`);
}
