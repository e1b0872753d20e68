import { readFileSync } from 'node:fs';
import path from 'node:path';

function findVersion(): string {
  // src/version.ts and dist/src/version.js alike: the first package.json upwards is Laurel's.
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string })
        .version;
    } catch {
      // not here: go up
    }
  }
  return '0.0.0';
}

/** Laurel's version (package.json), for the API reference and the webhook user-agent. */
export const LAUREL_VERSION = findVersion();
