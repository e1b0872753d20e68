import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

/** What packages/client/scripts/browser-bundle.mjs writes beside the bundle. */
interface BundleManifest {
  sha256: string;
  /** Each input of the bundle, relative to the client's package folder, with its sha256. */
  inputs: Record<string, string>;
}

/**
 * The client's browser bundle (packages/client/dist/browser/laurel-client.js), which the landing
 * page and the Playground load for "Sign in with a wallet". Read once at start: `code` is what is
 * served, `problem` (with what to run) when it cannot be: missing, or built from other sources than
 * those beside it. A missing or stale bundle is never served silently: the log says so at start,
 * the asset answers 503 with the problem, and the pages show it where the button would be.
 */
export interface ClientBundle {
  code: string | null;
  /** A strong ETag (the bundle's sha256), so a browser revalidates instead of downloading again. */
  etag: string | null;
  problem: string | null;
}

const BUNDLE = 'dist/browser/laurel-client.js';
const MANIFEST = 'dist/browser/laurel-client.json';
const REBUILD = 'run `npm run build` (npm start and npm install build it too)';

/** packages/client, found from src/graphql and from dist/src/graphql alike. */
function clientPackageFolder(): string | null {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const folder = path.join(dir, 'packages/client');
    if (existsSync(path.join(folder, 'package.json'))) return folder;
  }
  return null;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function loadClientBundle(packageFolder = clientPackageFolder()): ClientBundle {
  const refused = (problem: string): ClientBundle => ({ code: null, etag: null, problem });
  if (!packageFolder)
    return refused(`the client's browser bundle is missing (no packages/client): ${REBUILD}`);
  const file = path.join(packageFolder, BUNDLE);
  let bundle: Buffer;
  let manifest: BundleManifest;
  try {
    bundle = readFileSync(file);
    manifest = JSON.parse(readFileSync(path.join(packageFolder, MANIFEST), 'utf8')) as BundleManifest;
  } catch {
    return refused(`the client's browser bundle ${file} is missing: ${REBUILD}`);
  }
  if (sha256(bundle) !== manifest.sha256)
    return refused(`the client's browser bundle ${file} changed after its build: ${REBUILD}`);
  // Sources that are not here (an install without them) cannot be compared: the bundle is what shipped.
  for (const [input, hash] of Object.entries(manifest.inputs)) {
    const source = path.resolve(packageFolder, input);
    if (existsSync(source) && sha256(readFileSync(source)) !== hash)
      return refused(`the client's browser bundle ${file} is older than ${source}: ${REBUILD}`);
  }
  return { code: bundle.toString('utf8'), etag: `"${manifest.sha256}"`, problem: null };
}

/** Serves the bundle as a JavaScript module, or 503 in Shape A naming the problem. */
export function serveClientBundle(bundle: ClientBundle): RequestHandler {
  return (req, res) => {
    if (!bundle.code || !bundle.etag) {
      res.status(503).json({ status: 'failed', error: bundle.problem });
      return;
    }
    res.set({ 'Cache-Control': 'no-cache', ETag: bundle.etag });
    if (req.headers['if-none-match'] === bundle.etag) {
      res.status(304).end();
      return;
    }
    res.type('text/javascript').send(bundle.code);
  };
}
