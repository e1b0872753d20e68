/**
 * A throw-away anvil chain with Laurel deployed, for tests. One per test file (beforeAll/afterAll).
 * It starts from the state the global setup saved right after deploying Laurel (global-setup.ts):
 * the same blocks, receipts, addresses and dev-account nonces as a deployment of its own.
 */
import { gunzipSync } from 'node:zlib';
import {
  HDNodeWallet,
  JsonRpcProvider,
  Wallet,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type Provider,
  type TransactionReceipt,
} from 'ethers';
import { decodeLaurelRevert, revertDataOf, type DecodedLaurelRevert } from '../../src/chain/contracts';
import { deployLaurel, type LaurelDeployment } from '../../src/chain/deploy';
import { LOCAL_EXPLORER_URL } from '../../src/chain/registry';
import type { ChainEntry } from '../../src/config';
import { ANVIL_CHAIN_ID, ANVIL_MNEMONIC, startAnvil, type AnvilInstance } from '../../src/embedded/anvil';
import { setByGlobalSetup } from './database';
import { waitUntil } from './wait';

export { ANVIL_MNEMONIC };

export interface TestChain {
  rpcUrl: string;
  chainId: number;
  provider: JsonRpcProvider;
  /** anvil's first 10 dev accounts (10 000 ETH each), connected to `provider`. */
  wallets: Wallet[];
  /** The AppFactory address. */
  factory: string;
  deployment: LaurelDeployment;
  anvil: AnvilInstance;
  stop(): Promise<void>;
}

/** The test chain as Laurel configures a chain (an entry of CHAINS): `local`, 1 confirmation. */
export function chainConfigOf(chain: TestChain, overrides: Partial<ChainEntry> = {}): ChainEntry {
  return {
    name: 'local',
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    explorerUrl: LOCAL_EXPLORER_URL,
    factoryAddress: chain.factory,
    confirmations: 1,
    ...overrides,
  };
}

let devKeys: string[] | undefined;

/**
 * Private keys of anvil's first `count` dev accounts (m/44'/60'/0'/0/i of the default mnemonic).
 * The global setup derives the first ten once for the run (TEST_DEV_KEYS): the derivation's
 * elliptic-curve work would otherwise be done again by every file.
 */
export function anvilDevPrivateKeys(count = 10): string[] {
  devKeys ??= process.env.TEST_DEV_KEYS?.split(',');
  if (!devKeys || devKeys.length < count) {
    const root = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0");
    devKeys = Array.from({ length: count }, (_, i) => root.deriveChild(i).privateKey);
  }
  return devKeys.slice(0, count);
}

/**
 * A provider suited to anvil's instant mining: no request cache (ethers caches identical calls
 * such as `eth_getTransactionCount` for 250 ms by default, which hands out the same nonce to two
 * quick transactions) and fast polling.
 */
export function anvilProvider(rpcUrl: string): JsonRpcProvider {
  const provider = new JsonRpcProvider(rpcUrl, ANVIL_CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 20;
  return provider;
}

/** The chain's state as an anvil state file holds it (`anvil_dumpState` answers it gzipped, in hex). */
export async function dumpedChainState(provider: JsonRpcProvider): Promise<Buffer> {
  const dump = (await provider.send('anvil_dumpState', [])) as string;
  return gunzipSync(Buffer.from(dump.slice(2), 'hex'));
}

/**
 * Starts anvil with Laurel deployed from the first dev account: the run's saved chain, or, with
 * `deploy` (for tests of the deployment itself), a bare anvil on which it deploys.
 */
export async function startTestChain(options: { deploy?: boolean } = {}): Promise<TestChain> {
  const anvil = await startAnvil(options.deploy ? {} : { loadState: setByGlobalSetup('TEST_CHAIN_STATE') });
  const provider = anvilProvider(anvil.rpcUrl);
  const wallets = anvilDevPrivateKeys(10).map((key) => new Wallet(key, provider));
  let deployment: LaurelDeployment;
  try {
    deployment = options.deploy
      ? await deployLaurel(wallets[0]!)
      : (JSON.parse(setByGlobalSetup('TEST_CHAIN_DEPLOYMENT')) as LaurelDeployment);
  } catch (error) {
    provider.destroy();
    await anvil.stop();
    throw error;
  }
  return {
    rpcUrl: anvil.rpcUrl,
    chainId: anvil.chainId,
    provider,
    wallets,
    factory: deployment.factory,
    deployment,
    anvil,
    stop: async () => {
      provider.destroy();
      await anvil.stop();
    },
  };
}

// ------------------------------------------------------------------ assertions

/** Awaits `action` and returns the decoded Laurel custom error it reverted with (fails if it did not revert). */
export async function revertOf(
  action: Promise<unknown> | (() => Promise<unknown>),
): Promise<DecodedLaurelRevert> {
  let caught: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (error) {
    caught = error;
  }
  if (caught === undefined) throw new Error('expected a revert, but the call succeeded');
  const decoded = decodeLaurelRevert(revertDataOf(caught));
  if (!decoded) throw new Error(`expected a decodable Laurel revert, got: ${String(caught)}`);
  return decoded;
}

/** Asserts that `action` reverts with the custom error `errorName` (and `args`, when given). */
export async function expectLaurelRevert(
  action: Promise<unknown> | (() => Promise<unknown>),
  errorName: string,
  args?: unknown[],
): Promise<void> {
  const decoded = await revertOf(action);
  expect(decoded.errorName).toBe(errorName);
  if (args) expect(decoded.args).toEqual(args);
}

/**
 * The receipt of `hash` once the node has it, polled: for a transaction sent by someone else (Laurel).
 * Not ethers' waitForTransaction, which never resolves when the block lands between its first
 * receipt check and its block subscription's first poll (nothing mines a next block here).
 */
export function receiptOf(
  provider: Provider,
  hash: string,
  what = 'the receipt',
): Promise<TransactionReceipt> {
  return waitUntil(what, async () => (await provider.getTransactionReceipt(hash)) ?? undefined);
}

/** Sends a contract transaction and waits for its receipt (fails on a revert or a missing receipt). */
export async function mined(tx: Promise<ContractTransactionResponse>): Promise<ContractTransactionReceipt> {
  const receipt = await (await tx).wait();
  if (!receipt) throw new Error('transaction has no receipt');
  return receipt;
}
