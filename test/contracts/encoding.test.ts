import { AbiCoder, ZeroHash, concat, id as keccakText } from 'ethers';
import {
  appInterface,
  creditTokenInterface,
  decodeActionId,
  decodeLaurelRevert,
  encodeActionId,
  laurelErrorsInterface,
  revertDataOf,
} from '../../src/chain/contracts';

const selector = (signature: string) => keccakText(signature).slice(0, 10);

describe('action ids', () => {
  it('encodes UTF-8 right-padded with zeros to bytes32', () => {
    expect(encodeActionId('abc')).toBe('0x616263' + '00'.repeat(29));
    expect(encodeActionId('a'.repeat(32))).toBe('0x' + '61'.repeat(32));
  });

  it.each([
    'x',
    'quest-42',
    'a'.repeat(31),
    'a'.repeat(32),
    'é'.repeat(16),
    '🏆'.repeat(8),
    '日本語のアクション',
  ])('round-trips %s', (text) => {
    const encoded = encodeActionId(text);
    expect(encoded).toMatch(/^0x[0-9a-f]{64}$/);
    expect(decodeActionId(encoded)).toBe(text);
  });

  it('rejects empty, too long and NUL-containing ids with a RangeError', () => {
    expect(() => encodeActionId('')).toThrow(RangeError);
    expect(() => encodeActionId('a'.repeat(33))).toThrow(RangeError);
    expect(() => encodeActionId('é'.repeat(17))).toThrow(/at most 32 UTF-8 bytes \(got 34\)/);
    expect(() => encodeActionId('a\0b')).toThrow(RangeError);
  });

  it('decodes up to the first zero byte, tolerating bad UTF-8', () => {
    expect(decodeActionId(ZeroHash)).toBe('');
    expect(decodeActionId('0x6162' + '00'.repeat(2) + '63' + '00'.repeat(27))).toBe('ab');
    expect(decodeActionId('0xff' + '00'.repeat(31))).toBe('\ufffd');
    expect(() => decodeActionId('0x6162')).toThrow(RangeError);
  });
});

describe('decodeLaurelRevert', () => {
  const coder = AbiCoder.defaultAbiCoder();

  it('decodes our custom errors with their ABI item', () => {
    const caller = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const data = appInterface.encodeErrorResult('NotOperator', [caller]);
    expect(decodeLaurelRevert(data)).toEqual({
      errorName: 'NotOperator',
      args: [caller],
      abiItem: {
        inputs: [{ internalType: 'address', name: 'caller', type: 'address' }],
        name: 'NotOperator',
        type: 'error',
      },
    });
    expect(decodeLaurelRevert(selector('EmptyActionId()'))?.errorName).toBe('EmptyActionId');
    expect(
      decodeLaurelRevert(
        concat([selector('InvalidDecimals(uint8,uint8)'), coder.encode(['uint8', 'uint8'], [19, 18])]),
      ),
    ).toMatchObject({
      errorName: 'InvalidDecimals',
      args: [19n, 18n],
    });
  });

  it("decodes OpenZeppelin's errors thrown by our tokens", () => {
    const spender = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const data = creditTokenInterface.encodeErrorResult('ERC20InsufficientAllowance', [spender, 1n, 2n]);
    expect(decodeLaurelRevert(data)).toMatchObject({
      errorName: 'ERC20InsufficientAllowance',
      args: [spender, 1n, 2n],
    });
    expect(
      decodeLaurelRevert(
        concat([selector('ERC721NonexistentToken(uint256)'), coder.encode(['uint256'], [7])]),
      ),
    ).toMatchObject({
      errorName: 'ERC721NonexistentToken',
      args: [7n],
    });
    expect(
      decodeLaurelRevert(
        concat([selector('ERC2612ExpiredSignature(uint256)'), coder.encode(['uint256'], [5])]),
      )?.errorName,
    ).toBe('ERC2612ExpiredSignature');
    expect(decodeLaurelRevert(selector('FailedDeployment()'))?.errorName).toBe('FailedDeployment');
  });

  it('decodes Error(string) and Panic(uint256)', () => {
    expect(
      decodeLaurelRevert(concat([selector('Error(string)'), coder.encode(['string'], ['boom'])])),
    ).toMatchObject({
      errorName: 'Error',
      args: ['boom'],
    });
    expect(
      decodeLaurelRevert(concat([selector('Panic(uint256)'), coder.encode(['uint256'], [0x11])])),
    ).toMatchObject({
      errorName: 'Panic',
      args: [0x11n],
    });
  });

  it('returns null for anything else', () => {
    expect(decodeLaurelRevert(undefined)).toBeNull();
    expect(decodeLaurelRevert(null)).toBeNull();
    expect(decodeLaurelRevert('0x')).toBeNull();
    expect(decodeLaurelRevert('0x1234')).toBeNull();
    expect(decodeLaurelRevert('not hex')).toBeNull();
    expect(decodeLaurelRevert('0xdeadbeef')).toBeNull();
    // Known selector, truncated arguments.
    expect(decodeLaurelRevert(selector('NotOwner(address)') + '00')).toBeNull();
  });

  it('has one entry per error signature and no clashing selectors', () => {
    const errors: string[] = [];
    laurelErrorsInterface.forEachError((fragment) => errors.push(fragment.selector));
    expect(new Set(errors).size).toBe(errors.length);
    expect(errors.length).toBeGreaterThan(30);
  });

  it('finds revert data in ethers errors', () => {
    const data = selector('ZeroAmount()');
    expect(revertDataOf({ code: 'CALL_EXCEPTION', data })).toBe(data);
    expect(revertDataOf({ info: { error: { code: 3, message: 'execution reverted', data } } })).toBe(data);
    expect(revertDataOf({ error: { data: { data } } })).toBe(data);
    expect(revertDataOf(new Error('no data'))).toBeNull();
    expect(revertDataOf(null)).toBeNull();
  });
});
