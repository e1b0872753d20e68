import { Transaction, Wallet } from 'ethers';
import { parseSignedTransaction } from '../../src/chain/signed-transactions';

const base = {
  chainId: 31337,
  nonce: 7,
  to: Wallet.createRandom().address,
  data: '0x1234',
  gasLimit: 100_000,
};

describe('parseSignedTransaction', () => {
  it.each([
    ['legacy (EIP-155)', { ...base, type: 0, gasPrice: 1_000_000_000 }],
    ['access list (EIP-2930)', { ...base, type: 1, gasPrice: 1_000_000_000, accessList: [] }],
    ['fee market (EIP-1559)', { ...base, type: 2, maxFeePerGas: 2_000_000_000, maxPriorityFeePerGas: 1 }],
  ])('recovers the signer of a %s transaction as ethers does', async (_kind, fields) => {
    for (let i = 0; i < 5; i += 1) {
      const wallet = Wallet.createRandom();
      const signed = await wallet.signTransaction(fields);
      const parsed = parseSignedTransaction(signed);
      expect(parsed.from).toBe(wallet.address);
      expect(parsed.from).toBe(Transaction.from(signed).from);
      expect(parsed.hash).toBe(Transaction.from(signed).hash);
    }
  });

  it('has no signer for an unsigned transaction', () => {
    const unsigned = Transaction.from({
      ...base,
      type: 2,
      maxFeePerGas: 1,
      maxPriorityFeePerGas: 1,
    }).unsignedSerialized;
    expect(parseSignedTransaction(unsigned).from).toBeNull();
  });

  it('answers a signature that recovers no key as ethers does', async () => {
    const signed = Transaction.from(
      await Wallet.createRandom().signTransaction({
        ...base,
        type: 2,
        maxFeePerGas: 1,
        maxPriorityFeePerGas: 1,
      }),
    );
    // r = 0 is no point on the curve: nothing to recover.
    const forged = Transaction.from({
      ...signed.toJSON(),
      signature: { r: `0x${'00'.repeat(32)}`, s: signed.signature!.s, yParity: signed.signature!.yParity },
    }).serialized;
    const byEthers = (() => {
      try {
        return Transaction.from(forged).from;
      } catch (error) {
        return (error as Error).message;
      }
    })();
    const byLaurel = (() => {
      try {
        return parseSignedTransaction(forged).from;
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(byLaurel).toEqual(byEthers);
  });
});
