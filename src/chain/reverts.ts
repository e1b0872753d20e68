import { getAddress } from 'ethers';
import { AppError } from '../errors';
import { decodeLaurelRevert, revertDataOf, type AbiErrorItem } from './contracts';
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
  data: {
    abiItem: { inputs: AbiErrorItem['inputs']; name: string; type: string } | null;
    errorName: string | null;
  };
}

/**
 * The simulation of a transaction being built reverted: 422, code `transaction_error`, with the
 * decoded revert under `transaction_error` (Shape B `error.transaction_error`, Shape A
 * `transaction_error`, GraphQL `extensions.transaction_error`).
 */
export class TransactionRevertedError extends AppError {
  constructor(readonly transactionError: TransactionErrorDetails) {
    super('transaction_error', transactionError.message, 422, { transaction_error: transactionError });
  }
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
 * decoder, decodeLaurelRevert.
 */
export function transactionRevertedError(
  error: unknown,
  context: { chain: Chain; to: string; functionName: string },
): TransactionRevertedError {
  const data = revertDataOf(error);
  const decoded = decodeLaurelRevert(data);
  let reason: string;
  if (!decoded) {
    // No revert data at all (ethers calls it "require(false)"): out of gas, or an invalid
    // operation such as an amount too large for one transaction.
    reason =
      data && data !== '0x'
        ? `unknown custom error ${data.slice(0, 10)}`
        : 'execution reverted without a reason (out of gas or an invalid operation)';
  } else if (decoded.errorName === 'Error') {
    reason = String(decoded.args[0]);
  } else {
    reason = `${decoded.errorName}(${decoded.args.map(formatArgument).join(', ')})`;
  }
  const abiItem = decoded
    ? { inputs: decoded.abiItem.inputs, name: decoded.abiItem.name, type: decoded.abiItem.type }
    : null;
  return new TransactionRevertedError({
    reason,
    message: `The contract function "${context.functionName}" reverted with the following reason: ${reason}`,
    detailsMessage: nodeMessageOf(error, 'execution reverted'),
    contract_address: getAddress(context.to),
    chain_id: context.chain.chainId,
    function_name: context.functionName,
    data: { abiItem, errorName: decoded?.errorName ?? null },
  });
}
