import { Contract, Signature, ZeroAddress, type ContractTransactionResponse, type Wallet } from 'ethers';
import {
  AppArtifact,
  AppFactoryArtifact,
  BadgeArtifact,
  CreditTokenArtifact,
  XPTokenArtifact,
  appFactoryInterface,
  appInterface,
  encodeActionId,
} from '../../src/chain/contracts';
import { PERMIT_TYPES } from '../../src/modules/credit/credit.service';
import { expectLaurelRevert, mined, revertOf, startTestChain, type TestChain } from '../helpers/chain';

describe('XP, credit, point and badge tokens', () => {
  let chain: TestChain;
  let owner: Wallet;
  let alice: Wallet;
  let bob: Wallet;
  let app: Contract;
  let xp: Contract;
  let credit: Contract;
  let point: Contract;
  let badge: Contract;
  let plainBadge: Contract;

  const as = (contract: Contract, wallet: Wallet) => contract.connect(wallet) as Contract;
  const id = encodeActionId;

  async function created(tx: Promise<ContractTransactionResponse>, event: string): Promise<string> {
    const receipt = await mined(tx);
    const log = receipt.logs.map((l) => appInterface.parseLog(l)).find((l) => l?.name === event);
    return log!.args[0] as string;
  }

  async function latestTimestamp(): Promise<number> {
    const block = await chain.provider.getBlock('latest');
    return block!.timestamp;
  }

  beforeAll(async () => {
    chain = await startTestChain();
    [, owner, alice, bob] = chain.wallets;
    const factory = new Contract(chain.factory, AppFactoryArtifact.abi, owner);
    const receipt = await mined(factory.createApp('Tokens'));
    const log = receipt.logs
      .map((l) => appFactoryInterface.parseLog(l))
      .find((l) => l?.name === 'AppCreated');
    app = new Contract(log!.args.app as string, AppArtifact.abi, owner);
    xp = new Contract(log!.args.xpToken as string, XPTokenArtifact.abi, chain.provider);
    credit = new Contract(
      await created(app.createCreditToken('Credit', 'CRD', 18, 0, false), 'CreditTokenCreated'),
      CreditTokenArtifact.abi,
      chain.provider,
    );
    point = new Contract(
      await created(app.createCreditToken('Point', 'PNT', 0, 0, true), 'CreditTokenCreated'),
      CreditTokenArtifact.abi,
      chain.provider,
    );
    badge = new Contract(
      await created(app.createBadge('Medal', 'https://example.com/medal/'), 'BadgeCreated'),
      BadgeArtifact.abi,
      chain.provider,
    );
    plainBadge = new Contract(
      await created(app.createBadge('Plain', ''), 'BadgeCreated'),
      BadgeArtifact.abi,
      chain.provider,
    );

    await mined(app.rewardXP(alice.address, 100n, id('xp')));
    await mined(app.rewardCredit(await credit.getAddress(), alice.address, 1_000n, id('credit')));
    await mined(app.rewardPoint(await point.getAddress(), alice.address, 50n, id('point')));
    await mined(app.rewardBadge(await badge.getAddress(), alice.address, 1n, '', id('badge')));
    await mined(app.rewardBadge(await plainBadge.getAddress(), alice.address, 1n, '', id('plain')));
  });
  afterAll(() => chain?.stop());

  describe('XP token', () => {
    it('cannot be transferred or approved', async () => {
      await expectLaurelRevert(as(xp, alice).transfer(bob.address, 1n), 'NonTransferable', []);
      await expectLaurelRevert(as(xp, alice).approve(bob.address, 1n), 'NonTransferable', []);
      await expectLaurelRevert(
        as(xp, bob).transferFrom(alice.address, bob.address, 1n),
        'NonTransferable',
        [],
      );
      expect(await xp.balanceOf(alice.address)).toBe(100n);
      expect(await xp.allowance(alice.address, bob.address)).toBe(0n);
    });
  });

  describe('credit token', () => {
    it('transfers, approves and burns like any ERC-20', async () => {
      await mined(as(credit, alice).transfer(bob.address, 100n));
      expect(await credit.balanceOf(bob.address)).toBe(100n);
      await mined(as(credit, alice).approve(bob.address, 50n));
      await mined(as(credit, bob).transferFrom(alice.address, bob.address, 50n));
      expect(await credit.balanceOf(alice.address)).toBe(850n);
      expect(await credit.balanceOf(bob.address)).toBe(150n);
      await expectLaurelRevert(
        as(credit, bob).transferFrom(alice.address, bob.address, 1n),
        'ERC20InsufficientAllowance',
        [bob.address, 0n, 1n],
      );
      await expectLaurelRevert(as(credit, bob).transfer(alice.address, 151n), 'ERC20InsufficientBalance', [
        bob.address,
        150n,
        151n,
      ]);
      await expectLaurelRevert(as(credit, bob).transfer(ZeroAddress, 1n), 'ERC20InvalidReceiver', [
        ZeroAddress,
      ]);
      await mined(as(credit, bob).burn(50n));
      expect(await credit.balanceOf(bob.address)).toBe(100n);
      expect(await credit.totalSupply()).toBe(950n);
    });

    describe('permit (EIP-2612)', () => {
      async function signPermit(
        signer: Wallet,
        ownerAddress: string,
        spender: string,
        value: bigint,
        deadline: number,
      ) {
        const token = await credit.getAddress();
        const domain = { name: 'Credit', version: '1', chainId: chain.chainId, verifyingContract: token };
        const nonce = (await credit.nonces(ownerAddress)) as bigint;
        const signature = await signer.signTypedData(domain, PERMIT_TYPES, {
          owner: ownerAddress,
          spender,
          value,
          nonce,
          deadline,
        });
        return Signature.from(signature);
      }

      it('exposes the EIP-712 domain the signature is made on', async () => {
        const domain = await credit.eip712Domain();
        expect(domain.name).toBe('Credit');
        expect(domain.version).toBe('1');
        expect(domain.chainId).toBe(BigInt(chain.chainId));
        expect(domain.verifyingContract).toBe(await credit.getAddress());
      });

      it('accepts a permit signed by the owner, once', async () => {
        const deadline = (await latestTimestamp()) + 3600;
        const sig = await signPermit(alice, alice.address, bob.address, 300n, deadline);
        // Anyone may submit the permit (here: the spender).
        await mined(as(credit, bob).permit(alice.address, bob.address, 300n, deadline, sig.v, sig.r, sig.s));
        expect(await credit.allowance(alice.address, bob.address)).toBe(300n);
        expect(await credit.nonces(alice.address)).toBe(1n);
        await mined(as(credit, bob).transferFrom(alice.address, bob.address, 300n));
        expect(await credit.balanceOf(bob.address)).toBe(400n);

        // Replaying it fails: the nonce moved on, so it recovers to another signer.
        await expectLaurelRevert(
          as(credit, bob).permit(alice.address, bob.address, 300n, deadline, sig.v, sig.r, sig.s),
          'ERC2612InvalidSigner',
        );
      });

      it('rejects a permit signed by someone else', async () => {
        const deadline = (await latestTimestamp()) + 3600;
        const sig = await signPermit(bob, alice.address, bob.address, 10n, deadline);
        await expectLaurelRevert(
          as(credit, bob).permit(alice.address, bob.address, 10n, deadline, sig.v, sig.r, sig.s),
          'ERC2612InvalidSigner',
          [bob.address, alice.address],
        );
      });

      it('rejects a permit whose fields were changed after signing', async () => {
        const deadline = (await latestTimestamp()) + 3600;
        const sig = await signPermit(alice, alice.address, bob.address, 10n, deadline);
        const decoded = await revertOf(
          as(credit, bob).permit(alice.address, bob.address, 11n, deadline, sig.v, sig.r, sig.s),
        );
        expect(decoded.errorName).toBe('ERC2612InvalidSigner');
        expect(decoded.args[1]).toBe(alice.address);
        expect(decoded.args[0]).not.toBe(alice.address);
      });

      it('rejects an expired permit', async () => {
        const deadline = (await latestTimestamp()) - 1;
        const sig = await signPermit(alice, alice.address, bob.address, 10n, deadline);
        await expectLaurelRevert(
          as(credit, bob).permit(alice.address, bob.address, 10n, deadline, sig.v, sig.r, sig.s),
          'ERC2612ExpiredSignature',
          [BigInt(deadline)],
        );
        expect(await credit.allowance(alice.address, bob.address)).toBe(0n);
      });

      it('rejects a malformed signature', async () => {
        const deadline = (await latestTimestamp()) + 3600;
        const sig = await signPermit(alice, alice.address, bob.address, 10n, deadline);
        const highS = '0x' + 'f'.repeat(64);
        await expectLaurelRevert(
          as(credit, bob).permit(alice.address, bob.address, 10n, deadline, sig.v, sig.r, highS),
          'ECDSAInvalidSignatureS',
          [highS],
        );
      });

      it('transferWithPermit uses the permit for the caller and moves the tokens in one transaction', async () => {
        const deadline = (await latestTimestamp()) + 3600;
        const before = (await credit.balanceOf(bob.address)) as bigint;
        const aliceBefore = (await credit.balanceOf(alice.address)) as bigint;
        const sig = await signPermit(alice, alice.address, bob.address, 25n, deadline);
        const receipt = await mined(
          as(credit, bob).transferWithPermit(alice.address, bob.address, 25n, deadline, sig.v, sig.r, sig.s),
        );
        expect(await credit.balanceOf(bob.address)).toBe(before + 25n);
        expect(await credit.balanceOf(alice.address)).toBe(aliceBefore - 25n);
        // The permit's allowance is spent by the transfer, in the same transaction.
        expect(await credit.allowance(alice.address, bob.address)).toBe(0n);
        const names = receipt.logs.map((log) => credit.interface.parseLog(log)?.name);
        expect(names).toEqual(['Approval', 'Transfer']);
      });

      it('transferWithPermit may send the tokens elsewhere, but only the permit’s spender can use it', async () => {
        const deadline = (await latestTimestamp()) + 3600;
        const sig = await signPermit(alice, alice.address, bob.address, 5n, deadline);
        // Sent by someone other than the spender: the permit recovers to another signer.
        await expectLaurelRevert(
          as(credit, owner).transferWithPermit(
            alice.address,
            owner.address,
            5n,
            deadline,
            sig.v,
            sig.r,
            sig.s,
          ),
          'ERC2612InvalidSigner',
        );
        const ownerBefore = (await credit.balanceOf(owner.address)) as bigint;
        await mined(
          as(credit, bob).transferWithPermit(alice.address, owner.address, 5n, deadline, sig.v, sig.r, sig.s),
        );
        expect(await credit.balanceOf(owner.address)).toBe(ownerBefore + 5n);
      });

      it('transferWithPermit reverts with the permit’s errors and leaves nothing behind', async () => {
        const expired = (await latestTimestamp()) - 1;
        const old = await signPermit(alice, alice.address, bob.address, 10n, expired);
        await expectLaurelRevert(
          as(credit, bob).transferWithPermit(alice.address, bob.address, 10n, expired, old.v, old.r, old.s),
          'ERC2612ExpiredSignature',
          [BigInt(expired)],
        );
        const deadline = (await latestTimestamp()) + 3600;
        const sig = await signPermit(alice, alice.address, bob.address, 10n, deadline);
        await expectLaurelRevert(
          as(credit, bob).transferWithPermit(alice.address, bob.address, 11n, deadline, sig.v, sig.r, sig.s),
          'ERC2612InvalidSigner',
        );
        const tooMuch = (await credit.balanceOf(alice.address)) + 1n;
        const big = await signPermit(alice, alice.address, bob.address, tooMuch, deadline);
        await expectLaurelRevert(
          as(credit, bob).transferWithPermit(
            alice.address,
            bob.address,
            tooMuch,
            deadline,
            big.v,
            big.r,
            big.s,
          ),
          'ERC20InsufficientBalance',
        );
        expect(await credit.allowance(alice.address, bob.address)).toBe(0n);
      });
    });
  });

  describe('point token', () => {
    it('cannot be transferred, approved or permitted', async () => {
      await expectLaurelRevert(as(point, alice).transfer(bob.address, 1n), 'NonTransferable', []);
      await expectLaurelRevert(as(point, alice).approve(bob.address, 1n), 'NonTransferable', []);
      await expectLaurelRevert(
        as(point, bob).transferFrom(alice.address, bob.address, 1n),
        'NonTransferable',
        [],
      );

      const deadline = (await latestTimestamp()) + 3600;
      const domain = {
        name: 'Point',
        version: '1',
        chainId: chain.chainId,
        verifyingContract: await point.getAddress(),
      };
      const sig = Signature.from(
        await alice.signTypedData(domain, PERMIT_TYPES, {
          owner: alice.address,
          spender: bob.address,
          value: 1n,
          nonce: 0n,
          deadline,
        }),
      );
      await expectLaurelRevert(
        as(point, bob).permit(alice.address, bob.address, 1n, deadline, sig.v, sig.r, sig.s),
        'NonTransferable',
        [],
      );
      await expectLaurelRevert(
        as(point, bob).transferWithPermit(alice.address, bob.address, 1n, deadline, sig.v, sig.r, sig.s),
        'NonTransferable',
        [],
      );
      expect(await point.balanceOf(alice.address)).toBe(50n);
      expect(await point.decimals()).toBe(0n);
    });

    it('can be burnt by its holder', async () => {
      await mined(as(point, alice).burn(20n));
      expect(await point.balanceOf(alice.address)).toBe(30n);
      expect(await point.totalSupply()).toBe(30n);
      await expectLaurelRevert(as(point, bob).burn(1n), 'ERC20InsufficientBalance', [bob.address, 0n, 1n]);
    });
  });

  describe('badge', () => {
    it('is a transferable ERC-721 with base and per-token URIs', async () => {
      expect(await badge.ownerOf(1n)).toBe(alice.address);
      expect(await badge.tokenURI(1n)).toBe('https://example.com/medal/1');
      await mined(as(badge, alice).transferFrom(alice.address, bob.address, 1n));
      expect(await badge.ownerOf(1n)).toBe(bob.address);
      await expectLaurelRevert(
        as(badge, alice).transferFrom(bob.address, alice.address, 1n),
        'ERC721InsufficientApproval',
        [alice.address, 1n],
      );
      await expectLaurelRevert(badge.tokenURI(99n), 'ERC721NonexistentToken', [99n]);
      await expectLaurelRevert(badge.ownerOf(0n), 'ERC721NonexistentToken', [0n]);
      // ERC-165: ERC-721 and its metadata extension.
      expect(await badge.supportsInterface('0x80ac58cd')).toBe(true);
      expect(await badge.supportsInterface('0x5b5e139f')).toBe(true);
    });

    it('without a base URI a token has no URI unless it was given its own', async () => {
      expect(await plainBadge.tokenURI(1n)).toBe('');
      await mined(app.rewardBadge(await plainBadge.getAddress(), bob.address, 3n, 'ar://own', id('own')));
      expect(await plainBadge.totalSupply()).toBe(4n);
      for (const tokenId of [2n, 3n, 4n]) {
        expect(await plainBadge.ownerOf(tokenId)).toBe(bob.address);
        expect(await plainBadge.tokenURI(tokenId)).toBe('ar://own');
      }
    });
  });
});
