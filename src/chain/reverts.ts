import { getAddress, isError, toQuantity, type JsonRpcProvider } from 'ethers';
import { defineFailure } from '../errors';
import { appInterface, decodeLaurelRevert, revertDataOf, type AbiErrorItem } from './contracts';
import type { Chain } from './registry';
import { nodeMessageOf } from './rpc-errors';

/** `error.transaction_error` of a build whose simulation reverted. */
export interface TransactionErrorDetails {
  /** `NotOperator(0xAbC…)`, the `Error(string)` message, or `execution reverted`. */
  reason: string;
  message: string;
  /** The node's own message. */
  detailsMessage: string;
  contract_address: string;
  chain_id: number;
  function_name: string;
  /** A batch (App.batch): the index of the call that reverted; `function_name` and `reason` are that call's. */
  item_index?: number;
  data: {
    abiItem: { inputs: AbiErrorItem['inputs']; name: string; type: string } | null;
    errorName: string | null;
  };
}

/** What to do about the reverts a caller can fix, by custom error name. */
const REVERT_HINTS: Record<string, string> = {
  NotOperator:
    "the calling wallet must own or operate the app: call with the owner's API key, or have the owner add this wallet as an operator (POST /v1/app/operator/add)",
  NotOwner: "only the app's owner may do this: call with the owner's API key",
  AlreadyOperator:
    'the wallet already operates the app (the owner always does): GET /v1/apps lists its operators',
  UnknownOperator: 'the wallet is not an operator of the app: GET /v1/apps lists its operators',
  ERC20InsufficientAllowance:
    'the app may not move this many of your tokens yet: approve it first (POST /v1/credit/approve with spender_address = the app), or send mint: true to mint instead',
  ERC20InsufficientBalance:
    'the sender does not hold that many tokens: lower the amount, or send mint: true to mint',
  UnknownBadge: "the badge is not one of this app's: list them with GET /v1/badges",
  UnknownToken: "the token is not one of this app's: list them with GET /v1/credit/tokens",
  InvalidDecimals: 'Laurel tokens have at most 18 decimals',
  NonTransferable: 'point tokens cannot be transferred or approved',
  ERC20InvalidSpender: 'the spender must be a real address, not the zero address',
  ERC2612ExpiredSignature:
    "the permit's deadline has passed: ask POST /v1/credit/permit-data again and have the holder sign the new hashToSign",
  ERC2612InvalidSigner:
    "the permit is not the holder's signature of exactly this permit: the holder signs hashToSign of POST /v1/credit/permit-data (same token, holder, receiver and amount), and the transfer sends that amount and deadline",
  ECDSAInvalidSignature:
    "the permit signature is not valid: send r, s and v of the holder's signature of hashToSign",
  ECDSAInvalidSignatureS:
    "the permit signature is not valid: send r, s and v of the holder's signature of hashToSign",
};

/** Hints that differ for one function, keyed `function:ErrorName`. */
const FUNCTION_REVERT_HINTS: Record<string, string> = {
  'transferWithPermit:ERC20InsufficientBalance':
    'the holder does not hold that many tokens: lower the amount',
};

/** A short instruction for a revert of `functionName` the caller can fix, or null. */
export function revertHint(errorName: string | null, functionName?: string): string | null {
  if (!errorName) return null;
  return FUNCTION_REVERT_HINTS[`${functionName}:${errorName}`] ?? REVERT_HINTS[errorName] ?? null;
}

/**
 * The simulation of a transaction being built reverted: 422, code `transaction_error`, with the
 * decoded revert under `transaction_error` (Shape B `error.transaction_error`, Shape A
 * `transaction_error`, GraphQL `extensions.transaction_error`).
 */
export const TRANSACTION_REVERTED = defineFailure({
  status: 422,
  codes: ['transaction_error'],
  description:
    'The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)',
});

export class TransactionRevertedError extends TRANSACTION_REVERTED.Error {
  constructor(readonly transactionError: TransactionErrorDetails) {
    // The documented transaction_error keeps its exact fields; the error's message adds what to do.
    const hint = revertHint(transactionError.data.errorName, transactionError.function_name);
    super(hint ? `${transactionError.message}: ${hint}` : transactionError.message, {
      transaction_error: transactionError,
    });
  }
}

/** Whether a failed call reverted (as opposed to the node or the network failing). */
export function isRevert(error: unknown): boolean {
  return isError(error, 'CALL_EXCEPTION') || revertDataOf(error) !== null;
}

/** The reason of a revert, as `transaction_error.reason` words it: `NotOperator(0x…)`, an Error(string) text, … */
export function revertReason(error: unknown): string {
  return reasonOf(revertDataOf(error));
}

function reasonOf(data: string | null): string {
  const decoded = decodeLaurelRevert(data);
  if (!decoded) {
    // No revert data at all (ethers calls it "require(false)"): out of gas, or an invalid
    // operation such as an amount too large for one transaction.
    return data && data !== '0x'
      ? `unknown custom error ${data.slice(0, 10)}`
      : 'execution reverted without a reason (out of gas or an invalid operation)';
  }
  if (decoded.errorName === 'Error') return String(decoded.args[0]);
  // A batch (App.batch) names the call that reverted and wraps its revert: read the call's.
  if (decoded.errorName === 'BatchCallFailed') {
    const [index, inner] = decoded.args as unknown as [bigint, string];
    return `item ${index}: ${reasonOf(inner)}`;
  }
  return `${decoded.errorName}(${decoded.args.map(formatArgument).join(', ')})`;
}

function formatArgument(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(formatArgument).join(', ')}]`;
  return String(value);
}

/**
 * Turns a reverted simulation into the documented `transaction_error`. Every error a Laurel
 * contract can revert with (ours, OpenZeppelin's, Error(string), Panic) is decoded by the one
 * decoder, decodeLaurelRevert. A batch's `BatchCallFailed(index, reason)` is reported as the
 * revert of its call `index` (found in the batch's call `data`), with `item_index`.
 */
export function transactionRevertedError(
  error: unknown,
  context: { chain: Chain; to: string; functionName: string; data: string },
): TransactionRevertedError {
  let revertData = revertDataOf(error);
  let functionName = context.functionName;
  let itemIndex: number | undefined;
  const decodedBatch = decodeLaurelRevert(revertData);
  if (decodedBatch?.errorName === 'BatchCallFailed' && functionName === 'batch') {
    const [index, reason] = decodedBatch.args as unknown as [bigint, string];
    const [calls] = appInterface.decodeFunctionData('batch', context.data) as unknown as [string[]];
    itemIndex = Number(index);
    revertData = reason;
    functionName = appInterface.getFunction(calls[itemIndex]!.slice(0, 10))?.name ?? functionName;
  }
  const decoded = decodeLaurelRevert(revertData);
  const reason = reasonOf(revertData);
  const abiItem = decoded
    ? { inputs: decoded.abiItem.inputs, name: decoded.abiItem.name, type: decoded.abiItem.type }
    : null;
  const call = itemIndex === undefined ? `"${functionName}"` : `"${functionName}" of item ${itemIndex}`;
  return new TransactionRevertedError({
    reason,
    message: `The contract function ${call} reverted with the following reason: ${reason}`,
    detailsMessage: nodeMessageOf(error, 'execution reverted'),
    contract_address: getAddress(context.to),
    chain_id: context.chain.chainId,
    function_name: functionName,
    ...(itemIndex === undefined ? {} : { item_index: itemIndex }),
    data: { abiItem, errorName: decoded?.errorName ?? null },
  });
}

/**
 * Why a mined transaction reverted: the call replayed on the state before its block (exact on a
 * chain that mines one transaction a block; otherwise the best available without tracing), or
 * null when the replay does not revert.
 */
export async function minedRevertReason(
  provider: JsonRpcProvider,
  transaction: { from: string; to: string | null; data: string; value: bigint },
  blockNumber: number,
): Promise<string | null> {
  try {
    await provider.send('eth_call', [
      {
        from: transaction.from,
        to: transaction.to,
        data: transaction.data,
        value: toQuantity(transaction.value),
      },
      toQuantity(Math.max(0, blockNumber - 1)),
    ]);
    return null;
  } catch (error) {
    return isRevert(error) ? revertReason(error) : null;
  }
}
