import { Contract, getAddress, type Wallet } from 'ethers';
import {
  AppArtifact,
  AppFactoryArtifact,
  BadgeArtifact,
  CreditTokenArtifact,
  XPTokenArtifact,
  appFactoryInterface,
} from '../../src/chain/contracts';
import { predictLaurelAddresses } from '../../src/chain/deploy';
import { expectLaurelRevert, mined, startTestChain, type TestChain } from '../helpers/chain';

const EIP170_LIMIT = 24_576;
const EIP3860_INITCODE_LIMIT = 49_152;

describe('AppFactory', () => {
  let chain: TestChain;
  let owner: Wallet;
  let other: Wallet;
  let factory: Contract;

  beforeAll(async () => {
    chain = await startTestChain();
    [, owner, other] = chain.wallets;
    factory = new Contract(chain.factory, AppFactoryArtifact.abi, chain.provider);
  });
  afterAll(() => chain?.stop());

  const factoryAs = (wallet: Wallet) => new Contract(chain.factory, AppFactoryArtifact.abi, wallet);

  async function createApp(wallet: Wallet, name: string) {
    const receipt = await mined(factoryAs(wallet).createApp(name));
    const logs = receipt.logs
      .filter((log) => log.address === chain.factory)
      .map((log) => appFactoryInterface.parseLog(log))
      .filter((log) => log?.name === 'AppCreated');
    expect(logs).toHaveLength(1);
    const [app, appOwner, appName, xpToken] = logs[0]!.args;
    return {
      app: app as string,
      owner: appOwner as string,
      name: appName as string,
      xpToken: xpToken as string,
    };
  }

  it('is deployed at the deterministic addresses of the first dev account', async () => {
    expect(chain.deployment).toEqual(predictLaurelAddresses(chain.wallets[0].address, 0));
    expect(await factory.appImplementation()).toBe(chain.deployment.appImplementation);
    expect(await factory.xpTokenImplementation()).toBe(chain.deployment.xpTokenImplementation);
    const appImpl = new Contract(chain.deployment.appImplementation, AppArtifact.abi, chain.provider);
    expect(await appImpl.badgeImplementation()).toBe(chain.deployment.badgeImplementation);
    expect(await appImpl.creditTokenDeployer()).toBe(chain.deployment.creditTokenDeployer);
  });

  it('starts with no apps', async () => {
    expect(await factory.appCount()).toBe(0n);
    expect(await factory.allApps()).toEqual([]);
    await expectLaurelRevert(factory.appAt(0), 'IndexOutOfBounds', [0n, 0n]);
  });

  it('creates an app owned by the caller, with its own XP token, and lists it', async () => {
    const created = await createApp(owner, 'Quest Land');
    expect(created.owner).toBe(owner.address);
    expect(created.name).toBe('Quest Land');

    const app = new Contract(created.app, AppArtifact.abi, chain.provider);
    expect(await app.owner()).toBe(owner.address);
    expect(await app.name()).toBe('Quest Land');
    expect(await app.xpToken()).toBe(created.xpToken);
    expect(await app.factory()).toBe(chain.factory);
    expect(await app.isOperator(owner.address)).toBe(true);
    expect(await app.isOperator(other.address)).toBe(false);
    expect(await app.badges()).toEqual([]);
    expect(await app.tokens()).toEqual([]);

    const xp = new Contract(created.xpToken, XPTokenArtifact.abi, chain.provider);
    expect(await xp.name()).toBe('Quest Land XP');
    expect(await xp.symbol()).toBe('XP');
    expect(await xp.decimals()).toBe(18n);
    expect(await xp.totalSupply()).toBe(0n);
    expect(await xp.app()).toBe(created.app);

    const second = await createApp(other, 'Second');
    expect(second.app).not.toBe(created.app);
    expect(second.xpToken).not.toBe(created.xpToken);

    expect(await factory.appCount()).toBe(2n);
    expect(await factory.appAt(0)).toBe(created.app);
    expect(await factory.appAt(1)).toBe(second.app);
    await expectLaurelRevert(factory.appAt(2), 'IndexOutOfBounds', [2n, 2n]);
    expect(await factory.allApps()).toEqual([created.app, second.app]);
    expect(await factory.isApp(created.app)).toBe(true);
    expect(await factory.isApp(created.xpToken)).toBe(false);
    expect(await factory.isApp(other.address)).toBe(false);
  });

  it('rejects an empty name', async () => {
    await expectLaurelRevert(factoryAs(owner).createApp(''), 'EmptyName', []);
  });

  it('accepts a long UTF-8 name', async () => {
    const name = 'Ünïcødé 🏆 '.repeat(20);
    const created = await createApp(owner, name);
    const xp = new Contract(created.xpToken, XPTokenArtifact.abi, chain.provider);
    expect(await xp.name()).toBe(`${name} XP`);
  });

  it('cannot re-initialize an app, its XP token or the implementations', async () => {
    const created = await createApp(owner, 'Locked');
    const app = new Contract(created.app, AppArtifact.abi, other);
    await expectLaurelRevert(
      app.initialize(other.address, 'Hijack', other.address),
      'AlreadyInitialized',
      [],
    );
    const xp = new Contract(created.xpToken, XPTokenArtifact.abi, other);
    await expectLaurelRevert(xp.initialize(other.address, 'Hijack'), 'AlreadyInitialized', []);

    const appImpl = new Contract(chain.deployment.appImplementation, AppArtifact.abi, other);
    await expectLaurelRevert(
      appImpl.initialize(other.address, 'Impl', other.address),
      'AlreadyInitialized',
      [],
    );
    const xpImpl = new Contract(chain.deployment.xpTokenImplementation, XPTokenArtifact.abi, other);
    await expectLaurelRevert(xpImpl.initialize(other.address, 'Impl'), 'AlreadyInitialized', []);
    const badgeImpl = new Contract(chain.deployment.badgeImplementation, BadgeArtifact.abi, other);
    await expectLaurelRevert(badgeImpl.initialize(other.address, 'Impl', ''), 'AlreadyInitialized', []);
  });

  it('keeps every deployed contract within the EIP-170 runtime size limit', async () => {
    const created = await createApp(owner, 'Sizes');
    const app = new Contract(created.app, AppArtifact.abi, owner);
    const receipt = await mined(app.createCreditToken('Coin', 'COIN', 6, 0, false));
    const tokenLog = receipt.logs
      .map((l) => app.interface.parseLog(l))
      .find((l) => l?.name === 'CreditTokenCreated');
    const token = getAddress(tokenLog!.args[0] as string);
    await mined(app.createBadge('Medal', ''));
    const [badge] = (await app.badges()) as string[];

    const sizes: Record<string, number> = {};
    const addresses: Record<string, string> = {
      ...chain.deployment,
      appClone: created.app,
      xpTokenClone: created.xpToken,
      badgeClone: badge!,
      creditToken: token,
    };
    for (const [label, address] of Object.entries(addresses)) {
      const code = await chain.provider.getCode(address);
      sizes[label] = (code.length - 2) / 2;
      expect(sizes[label]).toBeGreaterThan(0);
      expect(sizes[label]).toBeLessThanOrEqual(EIP170_LIMIT);
    }
    // Clones are EIP-1167 minimal proxies.
    expect(sizes.appClone).toBe(45);
    expect(sizes.xpTokenClone).toBe(45);
    expect(sizes.badgeClone).toBe(45);
    for (const artifact of [
      AppFactoryArtifact,
      AppArtifact,
      XPTokenArtifact,
      BadgeArtifact,
      CreditTokenArtifact,
    ]) {
      expect((artifact.bytecode.length - 2) / 2).toBeLessThanOrEqual(EIP3860_INITCODE_LIMIT);
    }
  });
});
