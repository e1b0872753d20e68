/**
 * Deploys the Laurel contracts. Five CREATE transactions from one account, always in this order:
 *
 *   nonce n+0  XPToken implementation      (cloned per app)
 *   nonce n+1  Badge implementation        (cloned per badge collection)
 *   nonce n+2  CreditTokenDeployer
 *   nonce n+3  App implementation(badge implementation, credit token deployer)
 *   nonce n+4  AppFactory(app implementation, XP token implementation)
 *
 * so from a fresh account (n = 0, e.g. anvil's first dev account on a new chain) every address is
 * known in advance and the same on every such chain.
 */
import { Contract, ContractFactory, getAddress, getCreateAddress, type Provider, type Signer } from 'ethers';
import {
  AppArtifact,
  AppFactoryArtifact,
  BadgeArtifact,
  CreditTokenDeployerArtifact,
  XPTokenArtifact,
  type ContractArtifact,
} from './contracts';

export interface LaurelDeployment {
  factory: string;
  appImplementation: string;
  xpTokenImplementation: string;
  badgeImplementation: string;
  creditTokenDeployer: string;
}

/** Number of transactions (and nonces) one deployment uses. */
export const LAUREL_DEPLOYMENT_TRANSACTIONS = 5;

type Step = keyof LaurelDeployment;
const STEPS: readonly Step[] = [
  'xpTokenImplementation',
  'badgeImplementation',
  'creditTokenDeployer',
  'appImplementation',
  'factory',
];

const ARTIFACTS: Record<Step, ContractArtifact> = {
  xpTokenImplementation: XPTokenArtifact,
  badgeImplementation: BadgeArtifact,
  creditTokenDeployer: CreditTokenDeployerArtifact,
  appImplementation: AppArtifact,
  factory: AppFactoryArtifact,
};

function constructorArgs(step: Step, deployment: Partial<LaurelDeployment>): string[] {
  const need = (key: Step): string => {
    const value = deployment[key];
    if (!value) throw new Error(`Laurel deployment: ${key} must be deployed before ${step}`);
    return value;
  };
  switch (step) {
    case 'appImplementation':
      return [need('badgeImplementation'), need('creditTokenDeployer')];
    case 'factory':
      return [need('appImplementation'), need('xpTokenImplementation')];
    default:
      return [];
  }
}

/** The addresses a deployment by `deployer` starting at nonce `startNonce` gets. */
export function predictLaurelAddresses(deployer: string, startNonce = 0): LaurelDeployment {
  const from = getAddress(deployer);
  const out = {} as LaurelDeployment;
  STEPS.forEach((step, i) => {
    out[step] = getCreateAddress({ from, nonce: startNonce + i });
  });
  return out;
}

/**
 * Deploys one step with an explicit nonce: ethers providers cache `eth_getTransactionCount` for a
 * moment, so letting ethers pick the nonce of back-to-back transactions can reuse one.
 */
async function deployStep(
  signer: Signer,
  step: Step,
  deployment: Partial<LaurelDeployment>,
  nonce: number,
): Promise<string> {
  const artifact = ARTIFACTS[step];
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, signer);
  const contract = await factory.deploy(...constructorArgs(step, deployment), { nonce });
  await contract.waitForDeployment();
  return getAddress(await contract.getAddress());
}

async function deploySteps(
  signer: Signer,
  deployment: Partial<LaurelDeployment>,
  from: number,
): Promise<LaurelDeployment> {
  let nonce = await signer.getNonce('pending');
  for (let i = from; i < STEPS.length; i += 1) {
    deployment[STEPS[i]!] = await deployStep(signer, STEPS[i]!, deployment, nonce);
    nonce += 1;
  }
  return deployment as LaurelDeployment;
}

/**
 * Deploys every Laurel contract from `signer` (which must be connected to a provider), one
 * transaction after the other, each waited for, at consecutive nonces starting with its pending
 * nonce. Returns all addresses; `factory` is the one the service needs.
 */
export async function deployLaurel(signer: Signer): Promise<LaurelDeployment> {
  if (!signer.provider) throw new Error('deployLaurel: the signer must be connected to a provider');
  return deploySteps(signer, {}, 0);
}

async function hasCode(provider: Provider, address: string): Promise<boolean> {
  const code = await provider.getCode(address);
  return code !== '0x' && code !== '0x0';
}

/** Checks that `address` holds an AppFactory wired to the given app implementation. */
async function isLaurelFactory(
  provider: Provider,
  address: string,
  appImplementation: string,
): Promise<boolean> {
  if (!(await hasCode(provider, address))) return false;
  try {
    const factory = new Contract(address, AppFactoryArtifact.abi, provider);
    const impl = (await factory.getFunction('appImplementation').staticCall()) as string;
    return getAddress(impl) === getAddress(appImplementation);
  } catch {
    return false;
  }
}

export interface EnsureLaurelResult extends LaurelDeployment {
  /** True when this call sent at least one deployment transaction. */
  deployed: boolean;
  /** True when the addresses are the deterministic ones (deployment from the signer's nonce 0). */
  deterministic: boolean;
}

/**
 * Makes sure Laurel is deployed at the deterministic addresses of `signer` (its nonces 0..4) and
 * returns them. Idempotent: on a chain whose state was restored the factory is found (by its
 * code) and nothing is sent. A deployment interrupted part-way (nonce between 1 and 4) is
 * resumed. If the signer's early nonces were used for something else, a fresh deployment is made
 * at its current nonce (`deterministic: false`).
 */
export async function ensureLaurelDeployed(provider: Provider, signer: Signer): Promise<EnsureLaurelResult> {
  const connected = signer.provider ? signer : signer.connect(provider);
  const deployer = await connected.getAddress();
  const predicted = predictLaurelAddresses(deployer, 0);

  if (await isLaurelFactory(provider, predicted.factory, predicted.appImplementation)) {
    return { ...predicted, deployed: false, deterministic: true };
  }

  const nonce = await provider.getTransactionCount(deployer, 'latest');
  if (nonce < LAUREL_DEPLOYMENT_TRANSACTIONS) {
    // Every earlier step must be in place (deployed by an interrupted run of this function).
    let resumable = true;
    for (let i = 0; i < nonce; i += 1) {
      if (!(await hasCode(provider, predicted[STEPS[i]!]))) {
        resumable = false;
        break;
      }
    }
    if (resumable) {
      const deployment: Partial<LaurelDeployment> = {};
      for (let i = 0; i < nonce; i += 1) deployment[STEPS[i]!] = predicted[STEPS[i]!];
      const result = await deploySteps(connected, deployment, nonce);
      const deterministic = STEPS.every((step) => result[step] === predicted[step]);
      return { ...result, deployed: true, deterministic };
    }
  }

  const fresh = await deployLaurel(connected);
  return { ...fresh, deployed: true, deterministic: false };
}

/** Anvil's first dev account (mnemonic `test … junk`, m/44'/60'/0'/0/0): the development chain's deployer. */
export const DEV_CHAIN_DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/**
 * What a fresh development chain (the embedded `local` anvil) is known to hold, for the API
 * reference's examples: its first app (the factory's first clone, made with CREATE at the factory's
 * nonce 1) and a user (anvil's second dev account).
 */
export const DEV_CHAIN_EXAMPLES = {
  firstApp: getCreateAddress({ from: predictLaurelAddresses(DEV_CHAIN_DEPLOYER).factory, nonce: 1 }),
  user: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
} as const;
