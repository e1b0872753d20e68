import {
  Contract,
  ZeroAddress,
  ZeroHash,
  getAddress,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type Wallet,
} from 'ethers';
import {
  AppArtifact,
  AppFactoryArtifact,
  BadgeArtifact,
  CreditTokenArtifact,
  RewardKind,
  XPTokenArtifact,
  appFactoryInterface,
  appInterface,
  decodeActionId,
  encodeActionId,
} from '../../src/chain/contracts';
import { expectLaurelRevert, mined, startTestChain, type TestChain } from '../helpers/chain';

interface RewardedEvent {
  app: string;
  receiver: string;
  token: string;
  kind: number;
  amount: bigint;
  actionId: string;
}

/** The `Rewarded` events of a receipt, decoded. */
function rewardedEvents(receipt: ContractTransactionReceipt): RewardedEvent[] {
  const out: RewardedEvent[] = [];
  for (const log of receipt.logs) {
    const parsed = appInterface.parseLog(log);
    if (parsed?.name !== 'Rewarded') continue;
    out.push({
      app: parsed.args.app as string,
      receiver: parsed.args.receiver as string,
      token: parsed.args.token as string,
      kind: Number(parsed.args.kind),
      amount: parsed.args.amount as bigint,
      actionId: decodeActionId(parsed.args.actionId as string),
    });
  }
  return out;
}

function eventArgs(receipt: ContractTransactionReceipt, name: string) {
  const found = receipt.logs.map((log) => appInterface.parseLog(log)).filter((log) => log?.name === name);
  expect(found).toHaveLength(1);
  return found[0]!.args;
}

describe('App', () => {
  let chain: TestChain;
  let owner: Wallet;
  let operator: Wallet;
  let stranger: Wallet;
  let user: Wallet;
  let user2: Wallet;
  let appAddress: string;
  let xpAddress: string;
  let creditAddress: string;
  let pointAddress: string;
  let badgeAddress: string;
  let otherAppToken: string;
  let otherAppBadge: string;

  const appAs = (wallet: Wallet) => new Contract(appAddress, AppArtifact.abi, wallet);
  const token = (address: string, wallet?: Wallet) =>
    new Contract(address, CreditTokenArtifact.abi, wallet ?? chain.provider);
  const id = encodeActionId;

  async function newApp(wallet: Wallet, name: string): Promise<{ app: string; xp: string }> {
    const factory = new Contract(chain.factory, AppFactoryArtifact.abi, wallet);
    const receipt = await mined(factory.createApp(name));
    const log = receipt.logs
      .map((l) => appFactoryInterface.parseLog(l))
      .find((l) => l?.name === 'AppCreated');
    return { app: log!.args.app as string, xp: log!.args.xpToken as string };
  }

  beforeAll(async () => {
    chain = await startTestChain();
    [, owner, operator, stranger, user, user2] = chain.wallets;
    ({ app: appAddress, xp: xpAddress } = await newApp(owner, 'Main'));

    // Another app with its own token and badge, to check that an app only uses its own.
    const other = await newApp(stranger, 'Other');
    const otherApp = new Contract(other.app, AppArtifact.abi, stranger);
    let receipt = await mined(otherApp.createCreditToken('Other', 'OTH', 18, 0, false));
    otherAppToken = eventArgs(receipt, 'CreditTokenCreated').token as string;
    receipt = await mined(otherApp.createBadge('Other badge', ''));
    otherAppBadge = eventArgs(receipt, 'BadgeCreated').badge as string;
  });
  afterAll(() => chain?.stop());

  describe('operators', () => {
    it('only the owner adds and removes operators', async () => {
      await expectLaurelRevert(appAs(stranger).addOperator(stranger.address), 'NotOwner', [stranger.address]);
      await expectLaurelRevert(appAs(operator).addOperator(operator.address), 'NotOwner', [operator.address]);

      const added = await mined(appAs(owner).addOperator(operator.address));
      expect(eventArgs(added, 'OperatorAdded').operator).toBe(operator.address);
      expect(await appAs(owner).isOperator(operator.address)).toBe(true);

      // An operator cannot manage operators either.
      await expectLaurelRevert(appAs(operator).addOperator(user.address), 'NotOwner', [operator.address]);
      await expectLaurelRevert(appAs(operator).removeOperator(operator.address), 'NotOwner', [
        operator.address,
      ]);
      await expectLaurelRevert(appAs(stranger).removeOperator(operator.address), 'NotOwner', [
        stranger.address,
      ]);
    });

    it('rejects duplicates, the owner, the zero address and unknown operators', async () => {
      await expectLaurelRevert(appAs(owner).addOperator(operator.address), 'AlreadyOperator', [
        operator.address,
      ]);
      await expectLaurelRevert(appAs(owner).addOperator(owner.address), 'AlreadyOperator', [owner.address]);
      await expectLaurelRevert(appAs(owner).addOperator(ZeroAddress), 'ZeroAddress', []);
      await expectLaurelRevert(appAs(owner).removeOperator(user.address), 'UnknownOperator', [user.address]);
      await expectLaurelRevert(appAs(owner).removeOperator(owner.address), 'UnknownOperator', [
        owner.address,
      ]);
    });

    it('a removed operator can no longer reward or create', async () => {
      await mined(appAs(owner).addOperator(user2.address));
      await mined(appAs(user2).rewardXP(user.address, 1n, id('by-temp-operator')));
      const removed = await mined(appAs(owner).removeOperator(user2.address));
      expect(eventArgs(removed, 'OperatorRemoved').operator).toBe(user2.address);
      expect(await appAs(owner).isOperator(user2.address)).toBe(false);
      await expectLaurelRevert(appAs(user2).rewardXP(user.address, 1n, id('x')), 'NotOperator', [
        user2.address,
      ]);
      await expectLaurelRevert(appAs(user2).createBadge('B', ''), 'NotOperator', [user2.address]);
      await expectLaurelRevert(appAs(user2).createCreditToken('T', 'T', 18, 0, false), 'NotOperator', [
        user2.address,
      ]);
      // ... and can be added again.
      await mined(appAs(owner).addOperator(user2.address));
      await mined(appAs(owner).removeOperator(user2.address));
    });
  });

  describe('creating tokens and badges', () => {
    it('creates a credit token with the initial supply minted to the caller', async () => {
      const receipt = await mined(
        appAs(operator).createCreditToken('Gold Coin', 'GOLD', 6, 1_000_000n, false),
      );
      const args = eventArgs(receipt, 'CreditTokenCreated');
      creditAddress = args.token as string;
      expect([args.name, args.symbol, args.decimals, args.isPoint]).toEqual(['Gold Coin', 'GOLD', 6n, false]);

      const t = token(creditAddress);
      expect(await t.name()).toBe('Gold Coin');
      expect(await t.symbol()).toBe('GOLD');
      expect(await t.decimals()).toBe(6n);
      expect(await t.isPoint()).toBe(false);
      expect(await t.app()).toBe(appAddress);
      expect(await t.totalSupply()).toBe(1_000_000n);
      expect(await t.balanceOf(operator.address)).toBe(1_000_000n);
    });

    it('creates a point token', async () => {
      const receipt = await mined(appAs(owner).createCreditToken('Stars', 'STAR', 0, 0, true));
      const args = eventArgs(receipt, 'CreditTokenCreated');
      pointAddress = args.token as string;
      expect([args.name, args.symbol, args.decimals, args.isPoint]).toEqual(['Stars', 'STAR', 0n, true]);
      expect(await token(pointAddress).isPoint()).toBe(true);
      expect(await token(pointAddress).totalSupply()).toBe(0n);
    });

    it('creates a badge collection', async () => {
      const receipt = await mined(appAs(operator).createBadge('Explorer', 'ipfs://base/'));
      const args = eventArgs(receipt, 'BadgeCreated');
      badgeAddress = args.badge as string;
      expect([args.name, args.baseURI]).toEqual(['Explorer', 'ipfs://base/']);
      const badge = new Contract(badgeAddress, BadgeArtifact.abi, chain.provider);
      expect(await badge.name()).toBe('Explorer');
      expect(await badge.symbol()).toBe('BADGE');
      expect(await badge.baseURI()).toBe('ipfs://base/');
      expect(await badge.app()).toBe(appAddress);
      expect(await badge.totalSupply()).toBe(0n);
    });

    it('lists what it created', async () => {
      const app = appAs(owner);
      expect(await app.tokens()).toEqual([creditAddress, pointAddress]);
      expect(await app.badges()).toEqual([badgeAddress]);
      expect(await app.isToken(creditAddress)).toBe(true);
      expect(await app.isToken(pointAddress)).toBe(true);
      expect(await app.isToken(badgeAddress)).toBe(false);
      expect(await app.isToken(otherAppToken)).toBe(false);
      expect(await app.isBadge(badgeAddress)).toBe(true);
      expect(await app.isBadge(creditAddress)).toBe(false);
      expect(await app.isBadge(otherAppBadge)).toBe(false);
    });

    it('rejects strangers and invalid parameters', async () => {
      await expectLaurelRevert(appAs(stranger).createCreditToken('T', 'T', 18, 0, false), 'NotOperator', [
        stranger.address,
      ]);
      await expectLaurelRevert(appAs(stranger).createBadge('B', ''), 'NotOperator', [stranger.address]);
      await expectLaurelRevert(appAs(owner).createCreditToken('', 'T', 18, 0, false), 'EmptyName', []);
      await expectLaurelRevert(appAs(owner).createCreditToken('T', '', 18, 0, false), 'EmptySymbol', []);
      await expectLaurelRevert(appAs(owner).createCreditToken('T', 'T', 19, 0, false), 'InvalidDecimals', [
        19n,
        18n,
      ]);
      await expectLaurelRevert(appAs(owner).createBadge('', 'ipfs://x/'), 'EmptyName', []);
    });
  });

  describe('rewards', () => {
    it('rewardXP mints XP and emits one Rewarded event', async () => {
      const receipt = await mined(appAs(operator).rewardXP(user.address, 150n, id('quest-1')));
      expect(rewardedEvents(receipt)).toEqual([
        {
          app: appAddress,
          receiver: user.address,
          token: xpAddress,
          kind: RewardKind.XP,
          amount: 150n,
          actionId: 'quest-1',
        },
      ]);
      const xp = new Contract(xpAddress, XPTokenArtifact.abi, chain.provider);
      expect(await xp.balanceOf(user.address)).toBe(151n); // 1 from the temporary operator above
      await mined(appAs(owner).rewardXP(user.address, 9n, id('quest-2')));
      expect(await xp.balanceOf(user.address)).toBe(160n);
    });

    it('rewardBadge mints sequential badges with an optional per-token URI', async () => {
      const badge = new Contract(badgeAddress, BadgeArtifact.abi, chain.provider);
      let receipt = await mined(
        appAs(operator).rewardBadge(badgeAddress, user.address, 2n, '', id('badge-1')),
      );
      expect(rewardedEvents(receipt)).toEqual([
        {
          app: appAddress,
          receiver: user.address,
          token: badgeAddress,
          kind: RewardKind.Badge,
          amount: 2n,
          actionId: 'badge-1',
        },
      ]);
      const transfers = receipt.logs
        .filter((l) => l.address === badgeAddress)
        .map((l) => badge.interface.parseLog(l)!)
        .filter((l) => l.name === 'Transfer');
      expect(transfers.map((t) => [t.args.from, t.args.to, t.args.tokenId])).toEqual([
        [ZeroAddress, user.address, 1n],
        [ZeroAddress, user.address, 2n],
      ]);

      receipt = await mined(
        appAs(owner).rewardBadge(badgeAddress, user2.address, 1n, 'ipfs://special.json', id('badge-2')),
      );
      expect(rewardedEvents(receipt)).toHaveLength(1);
      expect(await badge.totalSupply()).toBe(3n);
      expect(await badge.ownerOf(1n)).toBe(user.address);
      expect(await badge.ownerOf(3n)).toBe(user2.address);
      expect(await badge.balanceOf(user.address)).toBe(2n);
      expect(await badge.tokenURI(1n)).toBe('ipfs://base/1');
      expect(await badge.tokenURI(2n)).toBe('ipfs://base/2');
      expect(await badge.tokenURI(3n)).toBe('ipfs://special.json');
    });

    it('rewardCredit mints a credit token and refuses point tokens', async () => {
      const receipt = await mined(
        appAs(operator).rewardCredit(creditAddress, user.address, 2_500n, id('credit-1')),
      );
      expect(rewardedEvents(receipt)).toEqual([
        {
          app: appAddress,
          receiver: user.address,
          token: creditAddress,
          kind: RewardKind.CreditMint,
          amount: 2_500n,
          actionId: 'credit-1',
        },
      ]);
      expect(await token(creditAddress).balanceOf(user.address)).toBe(2_500n);
      await expectLaurelRevert(
        appAs(operator).rewardCredit(pointAddress, user.address, 1n, id('c')),
        'PointToken',
        [pointAddress],
      );
    });

    it('rewardPoint mints a point token and refuses credit tokens', async () => {
      const receipt = await mined(appAs(operator).rewardPoint(pointAddress, user.address, 7n, id('point-1')));
      expect(rewardedEvents(receipt)).toEqual([
        {
          app: appAddress,
          receiver: user.address,
          token: pointAddress,
          kind: RewardKind.Point,
          amount: 7n,
          actionId: 'point-1',
        },
      ]);
      expect(await token(pointAddress).balanceOf(user.address)).toBe(7n);
      await expectLaurelRevert(
        appAs(operator).rewardPoint(creditAddress, user.address, 1n, id('p')),
        'NotPointToken',
        [creditAddress],
      );
    });

    it('transferERC20 moves the caller’s tokens with an allowance', async () => {
      // The operator holds the initial supply of the credit token.
      await expectLaurelRevert(
        appAs(operator).transferERC20(creditAddress, user2.address, 100n, id('transfer-1')),
        'ERC20InsufficientAllowance',
        [appAddress, 0n, 100n],
      );
      await mined(token(creditAddress, operator).approve(appAddress, 100n));
      const receipt = await mined(
        appAs(operator).transferERC20(creditAddress, user2.address, 60n, id('transfer-1')),
      );
      expect(rewardedEvents(receipt)).toEqual([
        {
          app: appAddress,
          receiver: user2.address,
          token: creditAddress,
          kind: RewardKind.CreditTransfer,
          amount: 60n,
          actionId: 'transfer-1',
        },
      ]);
      expect(await token(creditAddress).balanceOf(user2.address)).toBe(60n);
      expect(await token(creditAddress).balanceOf(operator.address)).toBe(1_000_000n - 60n);
      expect(await token(creditAddress).allowance(operator.address, appAddress)).toBe(40n);
      await expectLaurelRevert(
        appAs(operator).transferERC20(creditAddress, user2.address, 41n, id('transfer-2')),
        'ERC20InsufficientAllowance',
        [appAddress, 40n, 41n],
      );

      // Any ERC-20 works, e.g. another app's token; a balance shortfall bubbles up too.
      await mined(token(otherAppToken, owner).approve(appAddress, 5n));
      await expectLaurelRevert(
        appAs(owner).transferERC20(otherAppToken, user.address, 5n, id('transfer-3')),
        'ERC20InsufficientBalance',
        [owner.address, 0n, 5n],
      );
      // Point tokens cannot be moved this way.
      await expectLaurelRevert(
        appAs(owner).transferERC20(pointAddress, user.address, 1n, id('transfer-4')),
        'NonTransferable',
        [],
      );
      // A "token" without code fails cleanly.
      await expectLaurelRevert(
        appAs(owner).transferERC20(stranger.address, user.address, 1n, id('transfer-5')),
        'SafeERC20FailedOperation',
        [stranger.address],
      );
      await expectLaurelRevert(
        appAs(owner).transferERC20(ZeroAddress, user.address, 1n, id('transfer-6')),
        'ZeroAddress',
        [],
      );
    });

    it('strangers cannot reward; operators and the owner can', async () => {
      const calls: Array<[string, (w: Wallet) => Promise<ContractTransactionResponse>]> = [
        ['rewardXP', (w) => appAs(w).rewardXP(user.address, 1n, id('s'))],
        ['rewardBadge', (w) => appAs(w).rewardBadge(badgeAddress, user.address, 1n, '', id('s'))],
        ['rewardCredit', (w) => appAs(w).rewardCredit(creditAddress, user.address, 1n, id('s'))],
        ['rewardPoint', (w) => appAs(w).rewardPoint(pointAddress, user.address, 1n, id('s'))],
        ['transferERC20', (w) => appAs(w).transferERC20(creditAddress, user.address, 1n, id('s'))],
      ];
      for (const [, call] of calls) {
        await expectLaurelRevert(call(stranger), 'NotOperator', [stranger.address]);
      }
      await mined(token(creditAddress, operator).approve(appAddress, 10n));
      await mined(token(creditAddress, operator).transfer(owner.address, 10n));
      await mined(token(creditAddress, owner).approve(appAddress, 10n));
      for (const wallet of [operator, owner]) {
        for (const [, call] of calls) await mined(call(wallet));
      }
    });

    it('nobody but the app mints its tokens and badges directly', async () => {
      const xp = new Contract(xpAddress, XPTokenArtifact.abi, owner);
      await expectLaurelRevert(xp.mint(owner.address, 1n), 'NotApp', [owner.address]);
      await expectLaurelRevert(token(creditAddress, owner).mint(owner.address, 1n), 'NotApp', [
        owner.address,
      ]);
      await expectLaurelRevert(token(pointAddress, operator).mint(operator.address, 1n), 'NotApp', [
        operator.address,
      ]);
      const badge = new Contract(badgeAddress, BadgeArtifact.abi, owner);
      await expectLaurelRevert(badge.mint(owner.address, 1n, ''), 'NotApp', [owner.address]);
    });

    it('validates receiver, amount, action id and the app’s own tokens and badges', async () => {
      const app = appAs(operator);
      await expectLaurelRevert(app.rewardXP(ZeroAddress, 1n, id('v')), 'ZeroAddress', []);
      await expectLaurelRevert(app.rewardXP(user.address, 0n, id('v')), 'ZeroAmount', []);
      await expectLaurelRevert(app.rewardXP(user.address, 1n, ZeroHash), 'EmptyActionId', []);
      await expectLaurelRevert(
        app.rewardBadge(badgeAddress, user.address, 1n, '', ZeroHash),
        'EmptyActionId',
        [],
      );
      await expectLaurelRevert(
        app.rewardBadge(badgeAddress, user.address, 0n, '', id('v')),
        'ZeroAmount',
        [],
      );
      await expectLaurelRevert(
        app.rewardCredit(creditAddress, user.address, 1n, ZeroHash),
        'EmptyActionId',
        [],
      );
      await expectLaurelRevert(app.rewardPoint(pointAddress, ZeroAddress, 1n, id('v')), 'ZeroAddress', []);
      await expectLaurelRevert(
        app.transferERC20(creditAddress, user.address, 1n, ZeroHash),
        'EmptyActionId',
        [],
      );
      await expectLaurelRevert(app.transferERC20(creditAddress, user.address, 0n, id('v')), 'ZeroAmount', []);

      await expectLaurelRevert(
        app.rewardBadge(otherAppBadge, user.address, 1n, '', id('v')),
        'UnknownBadge',
        [otherAppBadge],
      );
      await expectLaurelRevert(
        app.rewardBadge(creditAddress, user.address, 1n, '', id('v')),
        'UnknownBadge',
        [creditAddress],
      );
      await expectLaurelRevert(app.rewardCredit(otherAppToken, user.address, 1n, id('v')), 'UnknownToken', [
        otherAppToken,
      ]);
      await expectLaurelRevert(app.rewardPoint(xpAddress, user.address, 1n, id('v')), 'UnknownToken', [
        xpAddress,
      ]);
    });

    it('an action id of exactly 32 UTF-8 bytes round-trips through the event', async () => {
      const actionIds = ['a'.repeat(32), 'é'.repeat(16), '🏆🏆🏆🏆🏆🏆🏆🏆', 'x'];
      for (const actionId of actionIds) {
        const receipt = await mined(appAs(operator).rewardXP(user.address, 1n, encodeActionId(actionId)));
        const [event] = rewardedEvents(receipt);
        expect(event!.actionId).toBe(actionId);
      }
      expect(() => encodeActionId('a'.repeat(33))).toThrow(RangeError);
    });

    it('every reward emits exactly one Rewarded event of its app', async () => {
      const xp = new Contract(xpAddress, XPTokenArtifact.abi, chain.provider);
      const before = (await xp.totalSupply()) as bigint;
      const receipt = await mined(appAs(owner).rewardXP(user2.address, 5n, id('count')));
      const rewarded = receipt.logs.filter((l) => appInterface.parseLog(l)?.name === 'Rewarded');
      expect(rewarded).toHaveLength(1);
      expect(getAddress(rewarded[0]!.address)).toBe(appAddress);
      expect(await xp.totalSupply()).toBe(before + 5n);
    });
  });

  describe('batch', () => {
    const call = (name: string, args: unknown[]) => appInterface.encodeFunctionData(name, args);

    it('makes its calls in order, as the caller, one Rewarded each, in one transaction', async () => {
      const receipt = await mined(
        appAs(owner).batch([
          call('rewardXP', [user.address, 3n, id('season')]),
          call('rewardBadge', [badgeAddress, user2.address, 1n, '', id('season')]),
          call('rewardXP', [user2.address, 4n, id('season')]),
        ]),
      );
      expect(rewardedEvents(receipt)).toEqual([
        {
          app: appAddress,
          receiver: user.address,
          token: xpAddress,
          kind: RewardKind.XP,
          amount: 3n,
          actionId: 'season',
        },
        {
          app: appAddress,
          receiver: user2.address,
          token: badgeAddress,
          kind: RewardKind.Badge,
          amount: 1n,
          actionId: 'season',
        },
        {
          app: appAddress,
          receiver: user2.address,
          token: xpAddress,
          kind: RewardKind.XP,
          amount: 4n,
          actionId: 'season',
        },
      ]);
    });

    it('reverts all with BatchCallFailed(index, the call’s revert data)', async () => {
      const xpBefore = (await new Contract(xpAddress, XPTokenArtifact.abi, chain.provider).balanceOf(
        user.address,
      )) as bigint;
      const zeroAddress = appInterface.getError('ZeroAddress')!.selector;
      await expectLaurelRevert(
        appAs(owner).batch([
          call('rewardXP', [user.address, 1n, id('a')]),
          call('rewardXP', [ZeroAddress, 1n, id('a')]),
        ]),
        'BatchCallFailed',
        [1n, zeroAddress],
      );
      expect(await new Contract(xpAddress, XPTokenArtifact.abi, chain.provider).balanceOf(user.address)).toBe(
        xpBefore,
      );
    });

    it('refuses a caller who does not operate the app, and keeps each call’s own rights', async () => {
      await expectLaurelRevert(
        appAs(stranger).batch([call('rewardXP', [user.address, 1n, id('a')])]),
        'NotOperator',
        [stranger.address],
      );
      // addOperator is the owner's: the owner may batch it, as the caller it stays.
      const receipt = await mined(appAs(owner).batch([call('addOperator', [user2.address])]));
      expect(eventArgs(receipt, 'OperatorAdded').operator).toBe(user2.address);
    });
  });
});
