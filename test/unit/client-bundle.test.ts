import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadClientBundle } from '../../src/graphql/client-bundle';

/**
 * Laurel serves the client's browser bundle only when it is there and was built from the sources
 * beside it (the manifest's sha256 of each input): a missing, changed or stale bundle is refused
 * with what to run.
 */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
let folder: string;

/** A package folder as browser-bundle.mjs leaves it: the bundle, its manifest and one source. */
function builtPackage(): { source: string; bundle: string } {
  folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-client-bundle-'));
  mkdirSync(path.join(folder, 'src'));
  mkdirSync(path.join(folder, 'dist/browser'), { recursive: true });
  const source = path.join(folder, 'src/index.ts');
  const bundle = path.join(folder, 'dist/browser/laurel-client.js');
  writeFileSync(source, 'export const a = 1;\n');
  writeFileSync(bundle, 'export const a = 1;\n');
  const manifest = {
    sha256: sha256('export const a = 1;\n'),
    inputs: { 'src/index.ts': sha256('export const a = 1;\n') },
  };
  writeFileSync(path.join(folder, 'dist/browser/laurel-client.json'), JSON.stringify(manifest));
  return { source, bundle };
}
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe("the client's browser bundle", () => {
  it('is served as built, with its sha256 as ETag', () => {
    builtPackage();
    expect(loadClientBundle(folder)).toEqual({
      code: 'export const a = 1;\n',
      etag: `"${sha256('export const a = 1;\n')}"`,
      problem: null,
    });
  });

  it('is refused when a source changed since the build', () => {
    const { source } = builtPackage();
    writeFileSync(source, 'export const a = 2;\n');
    expect(loadClientBundle(folder)).toEqual({
      code: null,
      etag: null,
      problem: `the client's browser bundle ${path.join(folder, 'dist/browser/laurel-client.js')} is older than ${source}: run \`npm run build\` (npm start and npm install build it too)`,
    });
  });

  it('is refused when the bundle itself changed, or is missing', () => {
    const { bundle } = builtPackage();
    writeFileSync(bundle, 'export const a = 3;\n');
    expect(loadClientBundle(folder).problem).toMatch(/changed after its build: run `npm run build`/);
    rmSync(bundle);
    expect(loadClientBundle(folder).problem).toMatch(/laurel-client\.js is missing: run `npm run build`/);
  });

  it('is still served where the sources are not shipped (an install without them)', () => {
    const { source } = builtPackage();
    rmSync(source);
    expect(loadClientBundle(folder).problem).toBeNull();
  });

  it('packages/client/scripts/browser-bundle.mjs builds the real one, which then passes the check', () => {
    const root = path.resolve(__dirname, '../..');
    execFileSync(process.execPath, [path.join(root, 'packages/client/scripts/browser-bundle.mjs')]);
    folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-client-bundle-')); // nothing to clean up
    const built = loadClientBundle(path.join(root, 'packages/client'));
    expect(built.problem).toBeNull();
    // One ES module exporting the library, with no Node built-in in it.
    expect(built.code).toMatch(/export\{[^}]*\bsignIn\b/);
    expect(built.code).not.toMatch(/node:/);
  });
});
