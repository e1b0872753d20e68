import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers';
import { AppFactoryArtifact, XPTokenArtifact } from '../../src/chain/contracts';
import { deployLaurel, ensureLaurelDeployed, predictLaurelAddresses } from '../../src/chain/deploy';
import { startAnvil, type AnvilInstance } from '../../src/embedded/anvil';
import { anvilDevPrivateKeys, anvilProvider, mined, startTestChain, type TestChain } from '../helpers/chain';

/** The AppFactory address of a deployment from anvil's first dev account on a fresh chain. */
const ANVIL_FACTORY = '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9';

describe('Laurel deployment', () => {
  let first: TestChain;
  let anvil: AnvilInstance;
  let provider: JsonRpcProvider;
  let wallets: Wallet[];

  beforeAll(async () => {
    [first, anvil] = await Promise.all([startTestChain({ deploy: true }), startAnvil()]);
    provider = anvilProvider(anvil.rpcUrl);
    wallets = anvilDevPrivateKeys(5).map((key) => new Wallet(key, provider));
  });
  afterAll(async () => {
    provider?.destroy();
    await Promise.all([first?.stop(), anvil?.stop()]);
  });

  it('deploys to the same addresses on two fresh anvils', async () => {
    expect(first.factory).toBe(ANVIL_FACTORY);

    const result = await ensureLaurelDeployed(provider, wallets[0]!);
    expect(result).toEqual({ ...first.deployment, deployed: true, deterministic: true });
    expect(result.factory).toBe(ANVIL_FACTORY);
    expect(await provider.getTransactionCount(wallets[0]!.address)).toBe(5);
  });

  it('ensureLaurelDeployed is idempotent', async () => {
    const again = await ensureLaurelDeployed(provider, wallets[0]!);
    expect(again).toEqual({ ...first.deployment, deployed: false, deterministic: true });
    expect(await provider.getTransactionCount(wallets[0]!.address)).toBe(5);

    // Also on the chain deployed with deployLaurel, with a signer not yet connected.
    const unconnected = new Wallet(anvilDevPrivateKeys(1)[0]!);
    const onFirst = await ensureLaurelDeployed(first.provider, unconnected);
    expect(onFirst.deployed).toBe(false);
    expect(onFirst.factory).toBe(first.factory);
  });

  it('the factory it finds works', async () => {
    const factory = new Contract(ANVIL_FACTORY, AppFactoryArtifact.abi, wallets[1]);
    await mined(factory.createApp('After ensure'));
    expect(await factory.appCount()).toBe(1n);
  });

  it('resumes a deployment that stopped part-way', async () => {
    const deployer = wallets[2]!;
    // The first step (XP token implementation) went through, then the deployment stopped.
    const xpImpl = await new ContractFactory(
      XPTokenArtifact.abi,
      XPTokenArtifact.bytecode,
      deployer,
    ).deploy();
    await xpImpl.waitForDeployment();
    expect(await provider.getTransactionCount(deployer.address)).toBe(1);

    const result = await ensureLaurelDeployed(provider, deployer);
    expect(result).toEqual({
      ...predictLaurelAddresses(deployer.address, 0),
      deployed: true,
      deterministic: true,
    });
    expect(result.xpTokenImplementation).toBe(await xpImpl.getAddress());
    expect(await provider.getTransactionCount(deployer.address)).toBe(5);
    const factory = new Contract(result.factory, AppFactoryArtifact.abi, deployer);
    await mined(factory.createApp('Resumed'));
  });

  it('deploys afresh when the deployer’s first nonces were used for something else', async () => {
    const deployer = wallets[3]!;
    await (await deployer.sendTransaction({ to: wallets[4]!.address, value: 1n })).wait();

    const result = await ensureLaurelDeployed(provider, deployer);
    expect(result).toEqual({
      ...predictLaurelAddresses(deployer.address, 1),
      deployed: true,
      deterministic: false,
    });
    const factory = new Contract(result.factory, AppFactoryArtifact.abi, deployer);
    await mined(factory.createApp('Fresh'));
    expect(await factory.appCount()).toBe(1n);
  });

  it('deployLaurel works through a default provider (which caches nonce look-ups)', async () => {
    const plain = new JsonRpcProvider(anvil.rpcUrl);
    try {
      const deployer = new Wallet(anvilDevPrivateKeys(6)[5]!, plain);
      const deployment = await deployLaurel(deployer);
      expect(deployment).toEqual(predictLaurelAddresses(deployer.address, 0));
    } finally {
      plain.destroy();
    }
  });

  it('deployLaurel deploys from any nonce', async () => {
    const deployer = wallets[4]!;
    const nonce = await provider.getTransactionCount(deployer.address);
    const deployment = await deployLaurel(deployer);
    expect(deployment).toEqual(predictLaurelAddresses(deployer.address, nonce));
  });
});
