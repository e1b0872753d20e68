// Laurel's write flow with @laurel/client and ethers v6: an API key from a signed challenge, then
// an app created in one call that builds the unsigned transaction, verifies it against what was
// asked (function, arguments, factory, chain id, value, fees) before signing it locally, and
// executes it.
//
//   npm start                         (in another terminal)
//   node examples/quickstart.mjs      (LAUREL_URL, default http://127.0.0.1:4000; CHAIN, PRIVATE_KEY)
//
// The wallet is the local chain's first dev account (anvil's well-known key): use your own on a
// real network (PRIVATE_KEY). The API key is kept in .data/quickstart-keys.json (QUICKSTART_KEY_FILE)
// and reused by the next run, so runs do not pile up keys against the wallet's limit. The client
// waits out a 429 for as long as Retry-After says; any other refusal stops the example in one line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Wallet } from 'ethers';
import { Laurel, LaurelError, sendVerified, signIn } from '@laurel/client';
import { fileKeyStore } from '@laurel/client/node';

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

/** Stops the example with one line (no stack): what went wrong and what to do. */
class Stop extends Error {}

const laurel = new Laurel({
  url: base,
  // Only to say so: the client itself waits out each 429 for its Retry-After.
  fetch: async (request) => {
    const response = await fetch(request);
    if (response.status === 429) {
      const wait = response.headers.get('retry-after') ?? '1';
      console.log(
        `${request.method} ${request.url.slice(base.length)}: Laurel asks to wait (429); retrying in ${wait} s`,
      );
    }
    return response;
  },
});

/** The kept key if Laurel still accepts it, else a new one from a signed challenge. */
async function apiKey() {
  const keys = fileKeyStore(keyFile);
  let kept = false;
  const store = {
    get: async (slot) => {
      const key = await keys.get(slot);
      kept = Boolean(key);
      return key;
    },
    set: keys.set,
  };
  const signedIn = await signIn(laurel, wallet, { store });
  if (signedIn.reused) {
    console.log(
      `API key for ${wallet.address}: ${signedIn.apiKey.slice(0, 14)}… (kept from an earlier run in ${shownKeyFile})`,
    );
    return;
  }
  if (kept) {
    console.log(
      `the kept key is no longer accepted (revoked, or Laurel's data was reset): getting a new one`,
    );
  }
  // The only time the whole key is shown: Laurel stores only its hash.
  console.log(`API key for ${wallet.address}: ${signedIn.apiKey}`);
  console.log(`  (kept in ${shownKeyFile} and reused by the next run; revoke it with DELETE /v1/keys/:id)`);
}

async function main() {
  await apiKey();

  // Build the transaction that creates an app, verify it, sign it locally, execute it and wait for it.
  const result = await sendVerified(
    laurel,
    wallet,
    '/v1/app/new',
    { chain, name: 'Quickstart app' },
    { wait: true },
  );
  if (result.status !== 'success') throw new Stop(`the transaction failed: ${JSON.stringify(result)}`);
  console.log(`transaction ${result.transactionHash} mined in block ${result.receipt.blockNumber}`);
  // The new app's id: the address of the factory's AppCreated event, which Laurel reads for us.
  console.log(`app id (app_id): ${result.created?.apps[0] ?? 'not found in the receipt'}`);
}

/** One line for any failure: Laurel unreachable, its refusal with the body it sent, or the client's. */
function oneLine(error) {
  if (error instanceof LaurelError && error.status === 0)
    return `no Laurel answers at ${base}: start it with npm start`;
  if (error instanceof LaurelError && error.body && typeof error.body === 'object') {
    return `${error.request} answered ${error.status}: ${JSON.stringify(error.body)}`;
  }
  // The client's refusals (a transaction that is not what was asked, a chain Laurel does not serve)
  // are one line each.
  return error instanceof Error ? error.message : String(error);
}

main().catch((error) => {
  console.error(oneLine(error));
  process.exit(1);
});
