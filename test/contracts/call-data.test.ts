import fc from 'fast-check';
import { getAddress, type ParamType } from 'ethers';
import { encodeFunctionCall } from '../../src/chain/call-data';
import { laurelInterfaces } from '../../src/chain/contracts';

type ContractName = keyof typeof laurelInterfaces;

const hexOfBytes = (length: number) =>
  fc
    .uint8Array({ minLength: length, maxLength: length })
    .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`);

/** Addresses in every spelling ethers meets: lower, upper, checksummed, a wrong checksum, junk. */
const anyAddress = hexOfBytes(20).chain((lower) =>
  fc.constantFrom(
    lower,
    `0x${lower.slice(2).toUpperCase()}`,
    getAddress(lower),
    // One letter's case flipped: a wrong checksum whenever the address has letters.
    getAddress(lower).replace(/[a-fA-F]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())),
    lower.slice(0, 40),
  ),
);

function valueFor(param: ParamType): fc.Arbitrary<unknown> {
  const integer = /^(u?)int(\d*)$/.exec(param.type);
  if (integer) {
    const bits = BigInt(integer[2] || '256');
    const [min, max] = integer[1]
      ? [0n, (1n << bits) - 1n]
      : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
    return fc.oneof(
      fc.bigInt({ min, max }),
      fc.constantFrom(min, max, max + 1n, min - 1n),
      fc.integer({ min: -1000, max: 1_000_000 }),
    );
  }
  const fixed = /^bytes(\d+)$/.exec(param.type);
  if (fixed) return fc.oneof(hexOfBytes(Number(fixed[1])), hexOfBytes(Math.max(1, Number(fixed[1]) - 1)));
  if (param.type === 'address') return anyAddress;
  if (param.type === 'bool') return fc.boolean();
  if (param.type === 'string') return fc.string();
  if (param.type === 'bytes')
    return fc.uint8Array({ maxLength: 40 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  if (param.baseType === 'array' && param.arrayChildren)
    return fc.array(valueFor(param.arrayChildren), { maxLength: 3 });
  throw new Error(`no generator for ${param.type}`);
}

/** What a call to `encode` gives: its data, or that it threw. */
function outcome(encode: () => string): string {
  try {
    return encode();
  } catch {
    return 'threw';
  }
}

const functions = (Object.keys(laurelInterfaces) as ContractName[]).flatMap((contract) => {
  const names: string[] = [];
  laurelInterfaces[contract].forEachFunction((fragment) => {
    // By signature: some names are overloaded (Badge.safeTransferFrom).
    if (!['view', 'pure'].includes(fragment.stateMutability)) names.push(fragment.format());
  });
  return names.map((name) => [contract, name] as const);
});

describe('call data', () => {
  it.each(functions)(
    '%s.%s encodes exactly as ethers does, and fails where ethers fails',
    (contract, name) => {
      const fragment = laurelInterfaces[contract].getFunction(name)!;
      fc.assert(
        fc.property(fc.tuple(...fragment.inputs.map(valueFor)), (args) => {
          const ours = outcome(() => encodeFunctionCall(contract, name, args));
          const ethers = outcome(() => laurelInterfaces[contract].encodeFunctionData(name, args));
          expect(ours).toBe(ethers);
        }),
        { numRuns: 200 },
      );
    },
  );

  it('App.rewardXP takes the word-by-word path and matches ethers', () => {
    const args = [getAddress(`0x${'ab'.repeat(20)}`), 10n ** 18n, `0x${'61'.repeat(3)}${'00'.repeat(29)}`];
    expect(encodeFunctionCall('App', 'rewardXP', args)).toBe(
      laurelInterfaces.App.encodeFunctionData('rewardXP', args),
    );
  });
});
