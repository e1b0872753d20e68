// The client's browser build: the library (src/index.ts, what `@laurel/client` exports) bundled by
// esbuild into one ES module, dist/browser/laurel-client.js, which Laurel's pages load (the
// Playground's "Sign in with a wallet") and which a page without a bundler can import. `platform:
// 'browser'` makes the build fail if the library reaches a Node built-in (`node:` imports belong
// under src/cli/). Beside it, laurel-client.json lists the inputs with their sha256, so Laurel can
// tell a bundle older than its sources (src/graphql/client-bundle.ts) instead of serving it.
// Every build runs this: npm run build and npm start (package.json), npm install (postinstall.mjs),
// and the tests' builds (test/helpers/global-setup*.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(packageDir, 'dist/browser');
const outFile = path.join(outDir, 'laurel-client.js');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // `npm install --omit=dev`: nothing to bundle with; dist/browser is whatever was shipped.
  console.log('laurel: esbuild is not installed, the client’s browser bundle left as it is');
  process.exit(0);
}

let result;
try {
  result = await esbuild.build({
    entryPoints: [path.join(packageDir, 'src/index.ts')],
    absWorkingDir: packageDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    metafile: true,
    outfile: outFile,
    logLevel: 'silent',
  });
} catch (error) {
  const messages = (error.errors ?? []).map(
    (e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`,
  );
  console.error(
    `laurel: the client's browser bundle failed (the library must not import Node built-ins):\n  ${messages.join('\n  ') || String(error)}`,
  );
  process.exit(1);
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const inputs = Object.fromEntries(
  Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(packageDir, input))
    .map((file) => [path.relative(packageDir, file), sha256(file)]),
);
const bundle = readFileSync(outFile);
mkdirSync(outDir, { recursive: true });
writeFileSync(
  path.join(outDir, 'laurel-client.json'),
  `${JSON.stringify({ sha256: sha256(outFile), bytes: bundle.length, gzipBytes: gzipSync(bundle).length, inputs }, null, 2)}\n`,
);
if (process.argv.includes('--verbose'))
  console.log(
    `laurel: ${path.relative(process.cwd(), outFile)}: ${bundle.length} bytes, ${gzipSync(bundle).length} gzipped`,
  );
