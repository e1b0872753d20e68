import { randomBytes } from 'node:crypto';
import { Transaction, Wallet, getAddress, getBytes, hexlify, id, keccak256 } from 'ethers';
import { installWasmKeccak } from '../../src/chain/keccak';

/** ethers' own JavaScript keccak, kept as `keccak256._` whatever is registered. */
const javascriptKeccak = (data: Uint8Array) => hexlify(keccak256._(data));

describe('the WebAssembly keccak ethers uses once Laurel starts', () => {
  beforeAll(() => installWasmKeccak());

  it('gives the digests of ethers own keccak, across the sponge rate and for a large transaction', () => {
    // 136 bytes is keccak256's rate: lengths around it and its multiples exercise the padding.
    const lengths = [0, 1, 20, 32, 64, 135, 136, 137, 271, 272, 273, 1000, 14_000, 100_000];
    for (const length of lengths) {
      const data = randomBytes(length);
      expect(keccak256(data)).toBe(javascriptKeccak(data));
    }
    expect(keccak256(new Uint8Array())).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    expect(id('Transfer(address,address,uint256)')).toBe(
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
  });

  it('is what ethers checksums addresses and hashes and recovers signed transactions with', async () => {
    expect(getAddress('0x52908400098527886e0f7030069857d2e4169ee7')).toBe(
      '0x52908400098527886E0F7030069857D2E4169EE7',
    );
    const wallet = Wallet.createRandom();
    const signed = await wallet.signTransaction({
      type: 2,
      chainId: 31337,
      nonce: 7,
      to: getAddress(hexlify(randomBytes(20))),
      data: hexlify(randomBytes(14_000)),
      gasLimit: 3_000_000,
      maxFeePerGas: 2_000_000_000,
      maxPriorityFeePerGas: 1_000_000_000,
    });
    const transaction = Transaction.from(signed);
    expect(transaction.from).toBe(wallet.address);
    expect(transaction.hash).toBe(javascriptKeccak(getBytes(signed)));
  });

  it('installs once, however many Laurels a process starts', async () => {
    const first = installWasmKeccak();
    expect(installWasmKeccak()).toBe(first);
    await first;
  });
});
