// Laurel's write flow with ethers v6: an API key from a signed challenge, then an app created by
// building an unsigned transaction, signing it locally and executing it.
//
//   npm start                         (in another terminal)
//   node examples/quickstart.mjs      (LAUREL_URL, default http://127.0.0.1:4000; CHAIN, PRIVATE_KEY)
//
// The wallet is the local chain's first dev account (anvil's well-known key): use your own on a
// real network (PRIVATE_KEY). The API key is kept in .data/quickstart-keys.json (QUICKSTART_KEY_FILE)
// and reused by the next run, so runs do not pile up keys against the wallet's limit.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Interface, Wallet } from 'ethers';

const base = (process.env.LAUREL_URL ?? `http://127.0.0.1:${process.env.PORT ?? 4000}`).replace(/\/$/, '');
const chain = process.env.CHAIN ?? 'local';
const wallet = new Wallet(
  process.env.PRIVATE_KEY ?? '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keyFile = path.resolve(
  process.env.QUICKSTART_KEY_FILE ??
    path.join(process.env.DATA_DIR ?? path.join(root, '.data'), 'quickstart-keys.json'),
);
const shownKeyFile = path.relative(process.cwd(), keyFile).startsWith('..')
  ? keyFile
  : path.relative(process.cwd(), keyFile);
/** How many 429s in a row to wait out before giving up. */
const MAX_WAITS = 5;

/** Stops the example with one line (no stack): what went wrong and what to do. */
class Stop extends Error {}

/** A JSON request to Laurel. A 429 is waited out (Retry-After); any other answer but 2xx stops the example. */
async function call(method, pathAndQuery, body, apiKey) {
  for (let waits = 0; ; waits += 1) {
    let response;
    try {
      response = await fetch(base + pathAndQuery, {
        method,
        headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new Stop(`no Laurel answers at ${base}: start it with npm start`);
    }
    const text = await response.text();
    if (response.status === 429 && waits < MAX_WAITS) {
      const seconds = retryAfterSeconds(response.headers.get('retry-after'));
      console.log(`${method} ${pathAndQuery}: Laurel asks to wait (429); retrying in ${seconds} s`);
      await sleep(seconds * 1000);
      continue;
    }
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new Stop(
        `${method} ${pathAndQuery} answered ${response.status} without JSON: is ${base} a Laurel?`,
      );
    }
    if (!response.ok) throw new Stop(`${method} ${pathAndQuery} answered ${response.status}: ${text}`);
    return answer;
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date); 1 when absent or unreadable. */
function retryAfterSeconds(header) {
  if (header && /^\d+$/.test(header.trim())) return Math.max(1, Number(header));
  const date = header ? Date.parse(header) : NaN;
  return Number.isNaN(date) ? 1 : Math.max(1, Math.ceil((date - Date.now()) / 1000));
}

/** Kept keys, one per Laurel and wallet. */
function keptKeys() {
  return existsSync(keyFile) ? JSON.parse(readFileSync(keyFile, 'utf8')) : {};
}

function keep(keys) {
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
}

/** The kept key if Laurel still accepts it, else a new one from a signed challenge (EIP-191 personal_sign). */
async function apiKey() {
  const keys = keptKeys();
  const slot = `${base} ${wallet.address}`;
  const kept = keys[slot];
  if (kept) {
    try {
      await call('GET', '/v1/keys', undefined, kept);
      console.log(
        `API key for ${wallet.address}: ${kept.slice(0, 14)}… (kept from an earlier run in ${shownKeyFile})`,
      );
      return kept;
    } catch (error) {
      if (!(error instanceof Stop) || !/ answered 401:/.test(error.message)) throw error;
      console.log(
        `the kept key is no longer accepted (revoked, or Laurel's data was reset): getting a new one`,
      );
    }
  }
  const { challenge } = await call('POST', '/key/challenge', { public_address: wallet.address });
  const { api_key } = await call('POST', '/key/verify', {
    public_address: wallet.address,
    signature: await wallet.signMessage(challenge),
  });
  keep({ ...keys, [slot]: api_key });
  // The only time the whole key is shown: Laurel stores only its hash.
  console.log(`API key for ${wallet.address}: ${api_key}`);
  console.log(`  (kept in ${shownKeyFile} and reused by the next run; revoke it with DELETE /v1/keys/:id)`);
  return api_key;
}

async function main() {
  const key = await apiKey();

  // Build the transaction that creates an app, sign it locally, execute it and wait for it.
  const { unsignedTransaction } = await call('POST', '/v1/app/new', { chain, name: 'Quickstart app' }, key);
  const signed = await wallet.signTransaction(unsignedTransaction);
  const result = await call(
    'POST',
    '/v1/transactions/execute-and-wait',
    { chain, signed_transaction: signed },
    key,
  );
  if (result.status !== 'success') throw new Stop(`the transaction failed: ${JSON.stringify(result)}`);

  // The new app's id is the address in the factory's AppCreated event.
  const factory = new Interface([
    'event AppCreated(address indexed app, address indexed owner, string name, address xpToken)',
  ]);
  const created = result.receipt.logs
    .map((log) => {
      try {
        return factory.parseLog(log);
      } catch {
        return null;
      }
    })
    .find((event) => event?.name === 'AppCreated');
  console.log(`transaction ${result.transactionHash} mined in block ${result.receipt.blockNumber}`);
  console.log(`app id (app_id): ${created?.args.app ?? 'not found in the receipt'}`);
}

main().catch((error) => {
  console.error(error instanceof Stop ? error.message : error);
  process.exit(1);
});
