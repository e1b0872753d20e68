import { AppError, type DocumentedFailure } from '../errors';
import type { Chain, ChainRegistry } from './registry';
import { nodeMessageOf } from './rpc-errors';

/**
 * A node refused a signed transaction (eth_sendRawTransaction). Rendered as Shape A:
 * `{status:'failed', error:<the node's message>, reason:<code>, transactionHash, sender}`, never a
 * 500 (GraphQL: extensions.code is the code in capitals).
 */
export class TransactionRejectedError extends AppError {
  constructor(code: string, message: string, httpStatus: number, transactionHash: string, sender: string) {
    super(code, message, httpStatus, { reason: code, transactionHash, sender });
  }
}

/** What a node's refusal means, by its message (geth, anvil, reth, erigon and nethermind wordings). */
export const NODE_REJECTIONS: readonly { pattern: RegExp; code: string; status: number; nonce?: true }[] = [
  {
    pattern: /nonce too low|nonce has already been used|old nonce/i,
    code: 'nonce_too_low',
    status: 409,
    nonce: true,
  },
  { pattern: /nonce too high|nonce gap/i, code: 'nonce_too_high', status: 409, nonce: true },
  {
    pattern: /replacement.*underpriced|replacement fee too low/i,
    code: 'replacement_underpriced',
    status: 409,
    nonce: true,
  },
  { pattern: /insufficient funds/i, code: 'insufficient_funds', status: 422 },
  { pattern: /intrinsic gas|gas limit|out of gas/i, code: 'gas_limit_rejected', status: 422 },
  { pattern: /fee cap|base fee|underpriced|tip/i, code: 'fee_too_low', status: 422 },
  { pattern: /signature|sender|signer|chain id/i, code: 'invalid_signature', status: 422 },
];

/** Codes of refusals the table does not know. */
const UNKNOWN_REJECTION = 'transaction_rejected';

/** The node's refusals as the API reference lists them: nonce problems (409), the others (422). */
export const NODE_REJECTED: readonly DocumentedFailure[] = [
  {
    status: 409,
    codes: NODE_REJECTIONS.filter((rejection) => rejection.status === 409).map((rejection) => rejection.code),
    description:
      'The node refused the transaction’s nonce (`reason`, the node’s message, `sender`, `transactionHash`)',
  },
  {
    status: 422,
    codes: [
      ...NODE_REJECTIONS.filter((rejection) => rejection.status === 422).map((rejection) => rejection.code),
      UNKNOWN_REJECTION,
    ],
    description:
      'The node refused the transaction (`reason`: funds, gas, fees, signature; the node’s message)',
  },
];

/**
 * The rejection error for a node's refusal of `transaction`; an unknown message is a 422
 * `transaction_rejected`. A refusal about the nonce says whose nonces it speaks of: the signer's.
 */
export function rejectionOf(
  error: unknown,
  transaction: { hash: string; from: string; nonce: number },
): TransactionRejectedError {
  const message = nodeMessageOf(error, 'transaction rejected');
  const known = NODE_REJECTIONS.find((rejection) => rejection.pattern.test(message));
  return new TransactionRejectedError(
    known?.code ?? UNKNOWN_REJECTION,
    known?.nonce
      ? `${message} (nonce ${transaction.nonce} of ${transaction.from}, the transaction's signer)`
      : message,
    known?.status ?? 422,
    transaction.hash,
    transaction.from,
  );
}

/**
 * Sends signed bytes (eth_sendRawTransaction). A refusal of a transaction the node has (already in
 * its pool, or mined meanwhile) counts as sent. Throws ChainUnavailableError when the node cannot
 * be reached (its `mayHaveArrived` says whether it may have taken it), else the node's refusal
 * (rejectionOf).
 */
export async function sendSignedTransaction(
  chains: ChainRegistry,
  chain: Chain,
  signed: string,
  transaction: { hash: string; from: string; nonce: number },
): Promise<void> {
  try {
    await chains.withProvider(chain, (provider) => provider.send('eth_sendRawTransaction', [signed]));
  } catch (error) {
    if (error instanceof AppError) throw error;
    const known = await chains
      .withProvider(chain, (provider) => provider.getTransaction(transaction.hash))
      .catch(() => null);
    if (!known) throw rejectionOf(error, transaction);
  }
}
