/**
 * The client side of Laurel's build → sign → execute flow, for integration tests: the REST calls
 * a client makes with its API key, signing a built transaction with the caller's wallet and
 * sending it through execute-and-wait, and reading what the receipt's events say.
 */
import { getAddress, type Interface, type LogDescription, type Signer, type Wallet } from 'ethers';
import { appFactoryInterface, appInterface } from '../../src/chain/contracts';
import { issueApiKey } from './auth';
import { request, type HttpResult } from './laurel';

export type Body = Record<string, unknown>;
/** An unsigned transaction as Laurel answers it, to be signed exactly as given. */
export type Unsigned = Record<string, unknown>;

export interface ReceiptLog {
  address: string;
  topics: string[];
  data: string;
}

/** The receipt execute-and-wait answers (only what the tests read of it). */
export interface Receipt {
  logs: ReceiptLog[];
}

/** The unsigned EIP-1559 transaction Laurel builds for the caller (on the local anvil chain). */
export const UNSIGNED_TX = {
  to: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
  data: expect.stringMatching(/^0x[0-9a-f]+$/),
  maxPriorityFeePerGas: expect.stringMatching(/^\d+$/),
  maxFeePerGas: expect.stringMatching(/^\d+$/),
  gasLimit: expect.stringMatching(/^\d+$/),
  nonce: expect.any(Number),
  chainId: 31337,
  type: 2,
};

/** The same, with the `gas` field the credit operations add. */
export const UNSIGNED_TX_WITH_GAS = {
  ...UNSIGNED_TX,
  gas: expect.stringMatching(/^\d+$/),
};

/** API keys for `wallets`, issued in parallel the way a client obtains one (see issueApiKey). */
export function issueApiKeys(url: string, wallets: readonly Wallet[]): Promise<string[]> {
  return Promise.all(wallets.map((wallet) => issueApiKey(url, wallet)));
}

/**
 * Signs the unsigned transaction exactly as given with `wallet` and sends it through
 * POST /v1/transactions/execute-and-wait on the `local` chain; expects it to succeed and returns
 * the receipt.
 */
export async function executeAndWait(
  url: string,
  unsignedTransaction: Unsigned,
  wallet: Signer,
  apiKey: string | undefined,
): Promise<Receipt> {
  const signed = await wallet.signTransaction(unsignedTransaction);
  const result = await request(url, 'POST', '/v1/transactions/execute-and-wait', {
    apiKey,
    body: { chain: 'local', signed_transaction: signed },
  });
  expect(result).toMatchObject({ status: 200, body: { status: 'success' } });
  return result.body.receipt as Receipt;
}

export interface Client {
  /** POST /v1`path` with a JSON body, under `apiKey` (the client's own by default). */
  post(path: string, body: unknown, apiKey?: string): Promise<HttpResult>;
  /** GET /v1`path`, under `apiKey` (the client's own by default). */
  get(path: string, apiKey?: string): Promise<HttpResult>;
  /** executeAndWait() with `wallet` (the client's own by default) and the client's API key. */
  execute(unsignedTransaction: Unsigned, wallet?: Signer): Promise<Receipt>;
}

/**
 * A REST client of the Laurel at `url` that sends `apiKey` (none when undefined) and, given the
 * wallet the key was issued for, signs with it.
 */
export function client(url: string, apiKey?: string, wallet?: Signer): Client {
  return {
    post: (path, body, key = apiKey) => request(url, 'POST', `/v1${path}`, { apiKey: key, body }),
    get: (path, key = apiKey) => request(url, 'GET', `/v1${path}`, { apiKey: key }),
    execute: (unsignedTransaction, signer = wallet) => {
      if (!signer) throw new Error('execute() needs a wallet to sign with');
      return executeAndWait(url, unsignedTransaction, signer, apiKey);
    },
  };
}

/**
 * Builds with POST /v1/app/new (chain `local`) and executes with the client's wallet; returns the
 * new app's address.
 */
export async function createApp(api: Client, name: string): Promise<string> {
  const built = await api.post('/app/new', { chain: 'local', name });
  expect(built.status).toBe(200);
  const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
  return eventArg(receipt.logs, appFactoryInterface, 'AppCreated', 'app');
}

/**
 * Builds with POST /v1/credit/new for the app (chain `local`; `token` holds token_name,
 * token_symbol, token_supply, token_decimals, token_is_point) and executes with the client's
 * wallet; returns the new token's address.
 */
export async function createCreditToken(api: Client, appId: string, token: Body): Promise<string> {
  const built = await api.post('/credit/new', { chain: 'local', app_id: appId, ...token });
  expect(built.status).toBe(200);
  const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
  return eventArg(receipt.logs, appInterface, 'CreditTokenCreated', 'token');
}

type EventLog = { topics: readonly string[]; data: string };

/** The first of `logs` that `iface` parses as `event` (fails when there is none). */
export function parsedEvent(logs: readonly EventLog[], iface: Interface, event: string): LogDescription {
  const parsed = logs.map((log) => iface.parseLog(log)).find((candidate) => candidate?.name === event);
  if (!parsed) throw new Error(`no ${event} event in the logs`);
  return parsed;
}

/** The address argument `arg` of the first `event` in `logs`, checksummed. */
export function eventArg(logs: readonly EventLog[], iface: Interface, event: string, arg: string): string {
  return getAddress(parsedEvent(logs, iface, event).args[arg] as string);
}
