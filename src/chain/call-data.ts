import { AbiCoder, type FunctionFragment, type ParamType } from 'ethers';
import { checksumAddress } from '../addresses';
import { laurelInterfaces, type laurelArtifacts } from './contracts';

/** One static ABI value as its 32-byte word (64 hex digits), or null to leave it to ethers. */
type WordEncoder = (value: unknown) => string | null;

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MIXED_CASE = /([A-F].*[a-f])|([a-f].*[A-F])/;
const HEX = /^0x[0-9a-fA-F]*$/;

function integerOf(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return null;
}

function wordEncoder(param: ParamType): WordEncoder | null {
  const { type } = param;
  if (type === 'address') {
    return (value) => {
      if (typeof value !== 'string' || !HEX_ADDRESS.test(value)) return null;
      // A mixed-case address must carry a valid checksum, as ethers requires.
      if (MIXED_CASE.test(value.slice(2)) && checksumAddress(value) !== value) return null;
      return value.slice(2).toLowerCase().padStart(64, '0');
    };
  }
  if (type === 'bool') {
    return (value) => (typeof value === 'boolean' ? (value ? '1' : '0').padStart(64, '0') : null);
  }
  const integer = /^(u?)int(\d*)$/.exec(type);
  if (integer) {
    const signed = integer[1] === '';
    const bits = BigInt(integer[2] || '256');
    const min = signed ? -(1n << (bits - 1n)) : 0n;
    const limit = signed ? 1n << (bits - 1n) : 1n << bits;
    return (value) => {
      const n = integerOf(value);
      if (n === null || n < min || n >= limit) return null;
      return (n < 0n ? (1n << 256n) + n : n).toString(16).padStart(64, '0');
    };
  }
  const fixedBytes = /^bytes(\d+)$/.exec(type);
  if (fixedBytes) {
    const hexLength = 2 + 2 * Number(fixedBytes[1]);
    return (value) =>
      typeof value === 'string' && value.length === hexLength && HEX.test(value)
        ? value.slice(2).toLowerCase().padEnd(64, '0')
        : null;
  }
  return null;
}

interface ResolvedFunction {
  fragment: FunctionFragment;
  selector: string;
  /** One encoder per input when every input is a static value type; otherwise null. */
  words: WordEncoder[] | null;
}

/** Each called function, resolved once per contract and name. */
const resolvedFunctions = new Map<string, ResolvedFunction>();

function resolve(contract: keyof typeof laurelArtifacts, functionName: string): ResolvedFunction {
  const key = `${contract}.${functionName}`;
  let resolved = resolvedFunctions.get(key);
  if (!resolved) {
    const fragment = laurelInterfaces[contract].getFunction(functionName);
    if (!fragment) throw new Error(`${contract} has no function ${functionName}`);
    const encoders = fragment.inputs.map(wordEncoder);
    const words = encoders.every((encoder) => encoder !== null) ? (encoders as WordEncoder[]) : null;
    resolved = { fragment, selector: fragment.selector, words };
    resolvedFunctions.set(key, resolved);
  }
  return resolved;
}

/**
 * `laurelInterfaces[contract].encodeFunctionData(functionName, args)`, without its repeated work:
 * the function's fragment and selector are resolved once (ethers looks the name up and hashes the
 * selector on every call), and a call whose arguments are all static value types (address, bool,
 * intN/uintN, bytesN: one 32-byte word each, as App.rewardXP) is written word by word. Anything
 * else, or a value the fast path does not take as it is (out of range, not canonical), is encoded
 * by ethers, which also throws its own errors for invalid values.
 */
export function encodeFunctionCall(
  contract: keyof typeof laurelArtifacts,
  functionName: string,
  args: readonly unknown[],
): string {
  const { fragment, selector, words } = resolve(contract, functionName);
  if (words && args.length === words.length) {
    let data = selector;
    for (let i = 0; i < words.length; i += 1) {
      const word = words[i](args[i]);
      if (word === null) break;
      data += word;
    }
    if (data.length === selector.length + 64 * words.length) return data;
  }
  return selector + AbiCoder.defaultAbiCoder().encode(fragment.inputs, args).slice(2);
}
