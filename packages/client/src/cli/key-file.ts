/**
 * A KeyStore in a JSON file (`{slot: key}`) readable by its owner only (mode 0600), for Node:
 * `signIn(laurel, wallet, { store: fileKeyStore('.data/keys.json') })` keeps the key and reuses it
 * on the next run. Imported as `@laurel/client/node` (the library itself stays browser-safe).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyStore } from '../sign-in.js';

export function fileKeyStore(file: string): KeyStore {
  const read = (): Record<string, string> => {
    if (!existsSync(file)) return {};
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    } catch (error) {
      throw new Error(`${file} is not a key file (JSON of kept keys): ${(error as Error).message}`);
    }
  };
  return {
    get: (slot) => read()[slot],
    set: (slot, apiKey) => {
      const keys = { ...read(), [slot]: apiKey };
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
      // A file that existed keeps its mode through writeFileSync: make it the owner's only.
      chmodSync(file, 0o600);
    },
  };
}
