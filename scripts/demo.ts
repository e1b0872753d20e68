/**
 * `npm run demo`: Laurel's whole flow against a running Laurel, with the local chain's dev
 * accounts, one line per step with what it did and how long it took.
 *
 *   npm start                      (in another terminal)
 *   npm run demo                   (or: npm run demo -- --url http://127.0.0.1:4000 --data-dir .data)
 *
 * It gets an API key by signing a challenge; creates an app, a badge and a credit token; starts an
 * HTTPS webhook receiver on this machine, registers it and has Laurel verify it; rewards XP, a badge
 * and credit to a user, signing every transaction locally and executing it through Laurel; checks
 * that each reward's `transaction` event arrived with both signatures (Laurel's and Standard
 * Webhooks') valid; prints the user's profile and the app's leaderboard; then deletes the webhook
 * and revokes the key. Any failure prints the server's answer and exits with code 1.
 *
 * The receiver's certificate is signed by the development CA that a development setup of Laurel
 * (only its own local chain) creates in its data folder and trusts: `--data-dir` (DATA_DIR, default
 * .data) must be that Laurel's.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HDNodeWallet, type Interface, type Log } from 'ethers';
import { appFactoryInterface, appInterface } from '../src/chain/contracts';
import { ANVIL_MNEMONIC } from '../src/embedded/anvil';
import { developmentCaFiles, type PemPair } from '../src/modules/webhooks/certificates';
import { WebhookReceiver, type ReceivedEvent } from './lib/webhook-receiver';

const { values: args } = parseArgs({
  options: {
    url: {
      type: 'string',
      default: process.env.LAUREL_URL ?? `http://127.0.0.1:${process.env.PORT ?? 4000}`,
    },
    'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
    chain: { type: 'string', default: 'local' },
  },
});
const base = args.url.replace(/\/$/, '');
const chain = args.chain;
/** How long to wait for a webhook event after its transaction was mined. */
const EVENT_TIMEOUT_MS = 30_000;
/** Where the receiver takes the demo webhook's calls. */
const EVENTS_PATH = '/laurel-events';

/** Dev account 1 owns the app (account 0 deployed Laurel); account 2 is the user rewarded. */
const owner = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/1");
const user = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/2");

class LaurelRefused extends Error {}

type Json = Record<string, unknown>;

/** A JSON call to Laurel; anything but 2xx stops the demo with Laurel's answer. */
async function call<T = Json>(
  method: string,
  pathAndQuery: string,
  body?: unknown,
  apiKey?: string,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(base + pathAndQuery, {
      method,
      headers: { 'content-type': 'application/json', ...(apiKey && { 'x-api-key': apiKey }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new LaurelRefused(
      `no Laurel answers at ${base} (${(error as Error).message}): start it with npm start`,
    );
  }
  const text = await response.text();
  if (!response.ok) throw new LaurelRefused(`${method} ${pathAndQuery} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

let stepNumber = 0;
/** Runs one step and prints `n. what (ms): result`. */
async function step<T>(what: string, run: () => Promise<T>, describe: (result: T) => string): Promise<T> {
  stepNumber += 1;
  const started = performance.now();
  const result = await run();
  const ms = Math.round(performance.now() - started);
  console.log(
    `${String(stepNumber).padStart(2)}. ${what.padEnd(34)} ${`${ms} ms`.padStart(8)}  ${describe(result)}`,
  );
  return result;
}

interface Executed {
  status: string;
  transactionHash: string;
  receipt: { logs: Log[]; blockNumber: number };
}

/** Builds with Laurel, signs here with `signer`, executes through Laurel and waits for the receipt. */
async function buildSignExecute(apiKey: string, buildPath: string, body: Json): Promise<Executed> {
  const built = await call<{ unsignedTransaction: Json }>('POST', buildPath, { chain, ...body }, apiKey);
  const signed = await owner.signTransaction(built.unsignedTransaction);
  const executed = await call<Executed>(
    'POST',
    '/v1/transactions/execute-and-wait',
    { chain, signed_transaction: signed },
    apiKey,
  );
  if (executed.status !== 'success')
    throw new LaurelRefused(`${buildPath}: the transaction failed: ${JSON.stringify(executed)}`);
  return executed;
}

/** The first `event` of `contract` in a receipt's logs. */
function eventArgument(executed: Executed, contract: Interface, event: string, argument: string): string {
  for (const log of executed.receipt.logs) {
    const parsed = contract.parseLog(log);
    if (parsed?.name === event) return String(parsed.args.getValue(argument));
  }
  throw new LaurelRefused(`no ${event} event in transaction ${executed.transactionHash}`);
}

/** The development CA of the Laurel whose data folder is `--data-dir`. */
function developmentCa(): PemPair {
  const files = developmentCaFiles(path.resolve(args['data-dir']));
  if (!existsSync(files.cert) || !existsSync(files.key)) {
    throw new LaurelRefused(
      `no development CA in ${path.dirname(files.cert)}: run the demo against the Laurel of that data folder ` +
        '(npm start with no CHAINS creates and trusts it), or pass its --data-dir',
    );
  }
  return { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') };
}

function signatures(event: ReceivedEvent): string {
  if (!event.laurelSignature || !event.standardSignature) {
    throw new LaurelRefused(
      `transaction event for ${event.hash}: x-laurel-signature ${event.laurelSignature ? 'valid' : 'INVALID'}, ` +
        `webhook-signature ${event.standardSignature ? 'valid' : 'INVALID'}`,
    );
  }
  return 'x-laurel-signature and webhook-signature (Standard Webhooks) valid';
}

async function main(): Promise<void> {
  console.log(
    `Laurel demo against ${base}, chain "${chain}"; owner ${owner.address}, user ${user.address}\n`,
  );
  const receiver = new WebhookReceiver(developmentCa());
  let apiKey = '';
  let webhookId = '';
  try {
    apiKey = await step(
      'API key from a signed challenge',
      async () => {
        const { challenge } = await call<{ challenge: string }>('POST', '/key/challenge', {
          public_address: owner.address,
        });
        const { api_key } = await call<{ api_key: string }>('POST', '/key/verify', {
          public_address: owner.address,
          signature: await owner.signMessage(challenge),
        });
        return api_key;
      },
      (key) => `${key.slice(0, 14)}… for ${owner.address}`,
    );
    const stamp = new Date().toISOString().slice(0, 19);
    const appId = await step(
      'create an app',
      async () =>
        eventArgument(
          await buildSignExecute(apiKey, '/v1/app/new', { name: `Demo app ${stamp}` }),
          appFactoryInterface,
          'AppCreated',
          'app',
        ),
      (id) => `app_id ${id}`,
    );
    const url = await step(
      'start an HTTPS webhook receiver',
      async () => {
        await receiver.start();
        return receiver.url(EVENTS_PATH);
      },
      (at) => at,
    );
    receiver.secrets.set(
      EVENTS_PATH,
      await step(
        'read the webhook secret',
        async () =>
          (await call<{ webhook_secret: string }>('GET', '/v1/webhook/secret', undefined, apiKey))
            .webhook_secret,
        (secret) => `${secret.slice(0, 10)}…`,
      ),
    );
    webhookId = await step(
      'register the webhook',
      async () => {
        const { webhook } = await call<{ webhook: { id: string; disabled: boolean } }>(
          'POST',
          '/v1/webhook',
          { url, events: ['transaction'] },
          apiKey,
        );
        return webhook.id;
      },
      (id) => `webhook ${id} (disabled until verified)`,
    );
    await step(
      'verify the webhook (challenge)',
      () => call<{ webhook: { disabled: boolean } }>('POST', `/v1/webhook/${webhookId}/test`, {}, apiKey),
      ({ webhook }) => `answered the challenge; disabled: ${webhook.disabled}`,
    );
    await step(
      'create a badge',
      () => buildSignExecute(apiKey, '/v1/badge/new', { app_id: appId, badge_name: 'Explorer' }),
      (executed) => `"Explorer" in transaction ${executed.transactionHash}`,
    );
    const tokenAddress = await step(
      'create a credit token',
      async () =>
        eventArgument(
          await buildSignExecute(apiKey, '/v1/credit/new', {
            app_id: appId,
            token_name: 'Demo Credit',
            token_symbol: 'DMC',
            token_supply: 0,
            token_decimals: 18,
            token_is_point: false,
          }),
          appInterface,
          'CreditTokenCreated',
          'token',
        ),
      (address) => `DMC at ${address}`,
    );
    const rewards: [string, string, Json][] = [
      ['reward 50 XP', '/v1/reward/XP', { action_id: 'finished-tutorial', amount: 50 }],
      [
        'reward the Explorer badge',
        '/v1/reward/badge',
        { action_id: 'first-quest', badge_name: 'Explorer', amount: 1 },
      ],
      [
        'reward 25 DMC credit (minted)',
        '/v1/reward/credit',
        { action_id: 'welcome-credit', token_address: tokenAddress, amount: 25, mint: true },
      ],
    ];
    for (const [what, buildPath, body] of rewards) {
      const executed = await step(
        what,
        () => buildSignExecute(apiKey, buildPath, { app_id: appId, receiver: user.address, ...body }),
        (result) => `transaction ${result.transactionHash} in block ${result.receipt.blockNumber}`,
      );
      await step(
        '  its transaction event arrived',
        async () => {
          const event = await receiver.eventOf(executed.transactionHash, EVENT_TIMEOUT_MS);
          if (!event)
            throw new LaurelRefused(
              `no transaction event for ${executed.transactionHash} within ${EVENT_TIMEOUT_MS} ms`,
            );
          return event;
        },
        signatures,
      );
    }
    await step(
      "the user's profile in the app",
      () =>
        call<Json>(
          'GET',
          `/v1/profile?chain=${chain}&user_id=${user.address}&app_id=${appId}`,
          undefined,
          apiKey,
        ),
      (profile) => `\n${JSON.stringify(profile, null, 2)}`,
    );
    await step(
      "the app's XP leaderboard",
      () => call<Json[]>('GET', `/v1/leaderboard?chain=${chain}&app_id=${appId}`, undefined, apiKey),
      (entries) => `\n${JSON.stringify(entries, null, 2)}`,
    );
  } finally {
    receiver.stop();
    await cleanUp(apiKey, webhookId);
  }
  console.log('\nDone: every step above went through the running Laurel.');
}

/** Deletes the demo's webhook (its receiver is gone) and revokes its key, so demos can be run again and again. */
async function cleanUp(apiKey: string, webhookId: string): Promise<void> {
  if (!apiKey) return;
  if (webhookId)
    await step(
      'delete the webhook',
      () => call('DELETE', `/v1/webhook/${webhookId}`, undefined, apiKey),
      () => webhookId,
    );
  await step(
    'revoke the API key',
    async () => {
      const { keys } = await call<{ keys: { id: string; prefix: string; revoked_at: string | null }[] }>(
        'GET',
        '/v1/keys',
        undefined,
        apiKey,
      );
      const mine = keys.find((key) => !key.revoked_at && apiKey.startsWith(key.prefix));
      if (!mine) throw new LaurelRefused('the demo key is not among GET /v1/keys');
      await call('DELETE', `/v1/keys/${mine.id}`, undefined, apiKey);
      return mine.id;
    },
    (id) => `key ${id}`,
  );
}

main().catch((error: unknown) => {
  console.error(`\ndemo failed: ${error instanceof LaurelRefused ? error.message : (error as Error).stack}`);
  process.exit(1);
});
