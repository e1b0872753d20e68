/**
 * Deploys the Laurel contracts to a chain and prints the chain configuration entry:
 *
 *   DEPLOYER_PRIVATE_KEY=0x... npm run contracts:deploy -- --chain sepolia --rpc-url https://... \
 *     [--explorer-url https://sepolia.etherscan.io]
 *
 * On a local anvil (chain id 31337) without DEPLOYER_PRIVATE_KEY, anvil's first dev account is
 * used and the deployment is idempotent (ensureLaurelDeployed). Progress goes to stderr, the JSON
 * snippet to stdout. The private key is never printed.
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { deployLaurel, ensureLaurelDeployed, type LaurelDeployment } from '../src/chain/deploy';
import { ANVIL_CHAIN_ID } from '../src/embedded/anvil';

/** Private key of anvil's first dev account (public knowledge; local chains only). */
const ANVIL_DEV_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const KNOWN_EXPLORERS: Record<number, string> = {
  1: 'https://etherscan.io',
  10: 'https://optimistic.etherscan.io',
  56: 'https://bscscan.com',
  100: 'https://gnosisscan.io',
  137: 'https://polygonscan.com',
  8453: 'https://basescan.org',
  42161: 'https://arbiscan.io',
  43114: 'https://snowtrace.io',
  80002: 'https://amoy.polygonscan.com',
  84532: 'https://sepolia.basescan.org',
  421614: 'https://sepolia.arbiscan.io',
  11155111: 'https://sepolia.etherscan.io',
  11155420: 'https://sepolia-optimism.etherscan.io',
};

export interface DeployArgs {
  chain: string;
  rpcUrl: string;
  explorerUrl?: string;
}

const USAGE =
  'usage: npm run contracts:deploy -- --chain NAME --rpc-url URL [--explorer-url URL]\n' +
  '       (env DEPLOYER_PRIVATE_KEY: the deployer key; optional on a local anvil, chain id 31337)';

export function parseDeployArgs(argv: string[]): DeployArgs {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new Error(USAGE);
    const match = /^--(chain|rpc-url|explorer-url)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument: ${arg}\n${USAGE}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined || value === '') throw new Error(`--${match[1]} needs a value\n${USAGE}`);
    values[match[1]!] = value;
  }
  const rpcUrl = values['rpc-url'] ?? process.env.RPC_URL;
  if (!values.chain) throw new Error(`--chain is required\n${USAGE}`);
  if (!rpcUrl) throw new Error(`--rpc-url is required\n${USAGE}`);
  return { chain: values.chain, rpcUrl, explorerUrl: values['explorer-url'] };
}

function walletFromEnv(provider: JsonRpcProvider, chainId: number): { wallet: Wallet; local: boolean } {
  const key = process.env.DEPLOYER_PRIVATE_KEY?.trim();
  if (!key) {
    if (chainId !== ANVIL_CHAIN_ID) throw new Error('DEPLOYER_PRIVATE_KEY is not set');
    return { wallet: new Wallet(ANVIL_DEV_KEY_0, provider), local: true };
  }
  try {
    return { wallet: new Wallet(key.startsWith('0x') ? key : `0x${key}`, provider), local: false };
  } catch {
    // Never echo the value.
    throw new Error('DEPLOYER_PRIVATE_KEY is not a valid private key (expected 32 bytes of hex)');
  }
}

/** eth_chainId with a timeout (ethers would retry an unreachable node forever). */
async function fetchChainId(rpcUrl: string, timeoutMs = 15_000): Promise<number> {
  let body: { result?: string; error?: { message?: string } };
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new Error(`cannot reach the RPC node: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof body.result !== 'string') {
    throw new Error(`eth_chainId failed: ${body.error?.message ?? JSON.stringify(body)}`);
  }
  return Number(BigInt(body.result));
}

export async function main(argv: string[]): Promise<void> {
  const args = parseDeployArgs(argv);
  const chainId = await fetchChainId(args.rpcUrl);
  const provider = new JsonRpcProvider(args.rpcUrl, chainId, { staticNetwork: true });
  try {
    const { wallet, local } = walletFromEnv(provider, chainId);
    const balance = await provider.getBalance(wallet.address);
    console.error(
      `Deploying Laurel to ${args.chain} (chain id ${chainId}) from ${wallet.address} (balance ${balance} wei)`,
    );

    let deployment: LaurelDeployment;
    if (local) {
      const result = await ensureLaurelDeployed(provider, wallet);
      console.error(result.deployed ? 'Deployed.' : 'Already deployed; nothing sent.');
      deployment = {
        factory: result.factory,
        appImplementation: result.appImplementation,
        xpTokenImplementation: result.xpTokenImplementation,
        badgeImplementation: result.badgeImplementation,
        creditTokenDeployer: result.creditTokenDeployer,
      };
    } else {
      deployment = await deployLaurel(wallet);
    }
    for (const [name, address] of Object.entries(deployment))
      console.error(`  ${name.padEnd(22)} ${address}`);

    const explorerUrl = args.explorerUrl ?? KNOWN_EXPLORERS[chainId] ?? '';
    if (!explorerUrl)
      console.error('No explorer known for this chain: fill in "explorerUrl" (or pass --explorer-url).');
    const entry = {
      name: args.chain,
      chainId,
      rpcUrl: args.rpcUrl,
      explorerUrl,
      factoryAddress: deployment.factory,
    };
    console.log(JSON.stringify(entry, null, 2));
  } finally {
    provider.destroy();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    // ethers' full message embeds the whole signed transaction; its short message is enough.
    const short = (error as { shortMessage?: unknown } | null)?.shortMessage;
    console.error(typeof short === 'string' ? short : error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
