/**
 * Typed access to the Laurel contract artifacts (built by `npm run contracts:build` into
 * src/chain/contracts/build/), their ethers Interfaces, revert decoding and action id encoding.
 */
import {
  ErrorFragment,
  Interface,
  dataLength,
  getBytes,
  hexlify,
  isBytesLike,
  toUtf8Bytes,
  toUtf8String,
  Utf8ErrorFuncs,
  zeroPadBytes,
  type BytesLike,
  type JsonFragment,
  type JsonFragmentType,
} from 'ethers';
import { remembered } from '../cache-on-success';
import AppJson from './contracts/build/App.json';
import AppFactoryJson from './contracts/build/AppFactory.json';
import BadgeJson from './contracts/build/Badge.json';
import CreditTokenJson from './contracts/build/CreditToken.json';
import CreditTokenDeployerJson from './contracts/build/CreditTokenDeployer.json';
import XPTokenJson from './contracts/build/XPToken.json';

export interface ContractArtifact {
  readonly contractName: string;
  readonly abi: readonly JsonFragment[];
  /** Creation code, 0x-prefixed. */
  readonly bytecode: string;
}

const artifact = (json: { contractName: string; abi: unknown[]; bytecode: string }): ContractArtifact =>
  json as unknown as ContractArtifact;

export const AppFactoryArtifact = artifact(AppFactoryJson);
export const AppArtifact = artifact(AppJson);
export const XPTokenArtifact = artifact(XPTokenJson);
export const CreditTokenArtifact = artifact(CreditTokenJson);
export const CreditTokenDeployerArtifact = artifact(CreditTokenDeployerJson);
export const BadgeArtifact = artifact(BadgeJson);

export const laurelArtifacts = {
  AppFactory: AppFactoryArtifact,
  App: AppArtifact,
  XPToken: XPTokenArtifact,
  CreditToken: CreditTokenArtifact,
  CreditTokenDeployer: CreditTokenDeployerArtifact,
  Badge: BadgeArtifact,
} as const;

/** An app's XP token: 18 decimals, symbol "XP" (XPToken.sol). */
export const XP_DECIMALS = 18;
export const XP_SYMBOL = 'XP';

export const appFactoryInterface = new Interface(AppFactoryArtifact.abi);
export const appInterface = new Interface(AppArtifact.abi);
export const xpTokenInterface = new Interface(XPTokenArtifact.abi);
export const creditTokenInterface = new Interface(CreditTokenArtifact.abi);
export const creditTokenDeployerInterface = new Interface(CreditTokenDeployerArtifact.abi);
export const badgeInterface = new Interface(BadgeArtifact.abi);

/** Each contract's ethers Interface (built once), by contract name. */
export const laurelInterfaces: Record<keyof typeof laurelArtifacts, Interface> = {
  AppFactory: appFactoryInterface,
  App: appInterface,
  XPToken: xpTokenInterface,
  CreditToken: creditTokenInterface,
  CreditTokenDeployer: creditTokenDeployerInterface,
  Badge: badgeInterface,
};

/** `App.RewardKind`, the `kind` of a `Rewarded` event. */
export enum RewardKind {
  XP = 0,
  Badge = 1,
  CreditMint = 2,
  CreditTransfer = 3,
  Point = 4,
}

// ------------------------------------------------------------------ revert decoding

export interface AbiErrorItem {
  readonly inputs: readonly JsonFragmentType[];
  readonly name: string;
  readonly type: 'error';
}

export interface DecodedLaurelRevert {
  errorName: string;
  /** Decoded arguments in declaration order (addresses checksummed, integers as bigint). */
  args: unknown[];
  abiItem: AbiErrorItem;
}

/** Solidity's built-in `Error(string)` and `Panic(uint256)`, decoded too for convenience. */
const BUILTIN_ERRORS: AbiErrorItem[] = [
  { inputs: [{ internalType: 'string', name: 'message', type: 'string' }], name: 'Error', type: 'error' },
  { inputs: [{ internalType: 'uint256', name: 'code', type: 'uint256' }], name: 'Panic', type: 'error' },
];

function collectErrors(): AbiErrorItem[] {
  const bySignature = new Map<string, AbiErrorItem>();
  for (const item of BUILTIN_ERRORS) bySignature.set(ErrorFragment.from(item).format('sighash'), item);
  for (const a of Object.values(laurelArtifacts)) {
    for (const item of a.abi) {
      if (item.type !== 'error') continue;
      const signature = ErrorFragment.from(item).format('sighash');
      if (!bySignature.has(signature)) bySignature.set(signature, item as AbiErrorItem);
    }
  }
  return [...bySignature.values()];
}

const laurelErrorItems = collectErrors();

/**
 * One Interface with every custom error any Laurel contract can revert with (ours, and
 * OpenZeppelin's ERC20/ERC721/permit/SafeERC20/Clones errors thrown through them), plus the
 * built-in Error(string) and Panic(uint256).
 */
export const laurelErrorsInterface = new Interface(laurelErrorItems as JsonFragment[]);

const errorsBySelector = new Map<string, { fragment: ErrorFragment; item: AbiErrorItem }>();
for (const item of laurelErrorItems) {
  const fragment = ErrorFragment.from(item);
  errorsBySelector.set(fragment.selector, { fragment, item });
}

/**
 * Decodes revert data of any Laurel contract into `{errorName, args, abiItem}`; null when the data
 * is empty, not bytes, of an unknown selector or not decodable.
 */
export function decodeLaurelRevert(data: BytesLike | null | undefined): DecodedLaurelRevert | null {
  if (data == null || !isBytesLike(data)) return null;
  const hex = hexlify(data);
  if (dataLength(hex) < 4) return null;
  const known = errorsBySelector.get(hex.slice(0, 10).toLowerCase());
  if (!known) return null;
  try {
    const args = laurelErrorsInterface.decodeErrorResult(known.fragment, hex).toArray(true);
    return { errorName: known.item.name, args, abiItem: known.item };
  } catch {
    return null;
  }
}

/**
 * Finds revert data in an error thrown by ethers (CALL_EXCEPTION `data`, or the JSON-RPC error's
 * `data` nested under `info.error`, `error` or `cause`). Returns null when there is none.
 */
export function revertDataOf(error: unknown): string | null {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): string | null => {
    if (value == null || typeof value !== 'object' || depth > 5 || seen.has(value)) return null;
    seen.add(value);
    const record = value as Record<string, unknown>;
    const data = record.data;
    if (typeof data === 'string' && isBytesLike(data) && dataLength(data) >= 4) return data;
    if (data && typeof data === 'object') {
      const nested = (data as Record<string, unknown>).data;
      if (typeof nested === 'string' && isBytesLike(nested) && dataLength(nested) >= 4) return nested;
    }
    for (const key of ['info', 'error', 'cause', 'revert']) {
      const found = visit(record[key], depth + 1);
      if (found) return found;
    }
    return null;
  };
  return visit(error, 0);
}

// ------------------------------------------------------------------ action ids

/**
 * Encodes an action id: its UTF-8 bytes right-padded with zeros to a bytes32. Throws a RangeError
 * when it is empty, longer than 32 UTF-8 bytes, or contains a NUL character (which would not
 * survive decoding). Remembered for the 10,000 most used ids: an app rewards the same few actions
 * over and over.
 */
export const encodeActionId: (id: string) => string = remembered(encodeActionIdOnce, 10_000);

function encodeActionIdOnce(id: string): string {
  if (typeof id !== 'string' || id.length === 0) throw new RangeError('actionId must not be empty');
  if (id.includes('\0')) throw new RangeError('actionId must not contain NUL characters');
  const bytes = toUtf8Bytes(id);
  if (bytes.length > 32) {
    throw new RangeError(`actionId must be at most 32 UTF-8 bytes (got ${bytes.length})`);
  }
  return zeroPadBytes(bytes, 32);
}

/**
 * Decodes a bytes32 action id: the UTF-8 text up to the first zero byte. Invalid UTF-8 (an id set
 * by someone calling the contracts directly) is decoded with U+FFFD replacement characters rather
 * than throwing.
 */
export function decodeActionId(value: BytesLike): string {
  const bytes = getBytes(value);
  if (bytes.length !== 32) throw new RangeError(`actionId must be 32 bytes (got ${bytes.length})`);
  const end = bytes.indexOf(0);
  return toUtf8String(end === -1 ? bytes : bytes.subarray(0, end), Utf8ErrorFuncs.replace);
}
