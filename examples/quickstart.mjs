// Laurel's write flow with ethers v6: an API key from a signed challenge, then an app created by
// building an unsigned transaction, signing it locally and executing it.
//
//   npm start                         (in another terminal)
//   node examples/quickstart.mjs      (LAUREL_URL, default http://127.0.0.1:4000)
//
// The wallet is the local chain's first dev account (anvil's well-known key): use your own on a
// real network (PRIVATE_KEY).
import { Interface, Wallet } from 'ethers';

const base = process.env.LAUREL_URL ?? `http://127.0.0.1:${process.env.PORT ?? 4000}`;
const chain = process.env.CHAIN ?? 'local';
const wallet = new Wallet(
  process.env.PRIVATE_KEY ?? '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
);

/** A JSON request to Laurel; any answer but 2xx stops the example with Laurel's error body. */
async function call(method, path, body, apiKey) {
  const response = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok)
    throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

// 1. An API key: sign the challenge (EIP-191 personal_sign).
const { challenge } = await call('POST', '/key/challenge', { public_address: wallet.address });
const { api_key } = await call('POST', '/key/verify', {
  public_address: wallet.address,
  signature: await wallet.signMessage(challenge),
});
console.log(`API key for ${wallet.address}: ${api_key.slice(0, 14)}…`);

// 2. Build the transaction that creates an app, sign it locally, execute it and wait for it.
const { unsignedTransaction } = await call('POST', '/v1/app/new', { chain, name: 'Quickstart app' }, api_key);
const signed = await wallet.signTransaction(unsignedTransaction);
const result = await call(
  'POST',
  '/v1/transactions/execute-and-wait',
  { chain, signed_transaction: signed },
  api_key,
);
if (result.status !== 'success') throw new Error(`the transaction failed: ${JSON.stringify(result)}`);

// 3. The new app's id is the address in the factory's AppCreated event.
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
