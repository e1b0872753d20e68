/** What the transaction lifecycle can fail with: each documented entry and the error it throws. */
import { defineFailure } from '../../errors';

/**
 * A signed transaction Laurel built for another wallet than its signer (rule 7 of
 * ./building/nonce-reservations.ts): 422, Shape A `{status:'failed', error, reason:'signer_mismatch',
 * transactionHash, signer, built_for}`. Nothing was recorded or sent.
 */
export const SIGNER_MISMATCH = defineFailure({
  status: 422,
  codes: ['signer_mismatch'],
  description:
    'The transaction is signed by another wallet than the one Laurel built it for (`reason: signer_mismatch`, `signer`, `built_for`): nothing was sent',
});

export class SignerMismatchError extends SIGNER_MISMATCH.Error {
  constructor(transactionHash: string, signer: string, builtFor: string, nonce: number) {
    super(
      `The transaction is signed by ${signer}, but Laurel built it for ${builtFor} (nonce ${nonce} of ${builtFor}): ` +
        `sign it with ${builtFor}'s key, or build it again with ${signer}'s API key.`,
      { reason: 'signer_mismatch', transactionHash, signer, built_for: builtFor },
    );
  }
}

/** 404 for a hash of no transaction of the caller's wallet sent through Laurel (unknown, or another wallet's). */
export const TRANSACTION_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['transaction_not_found'],
  description:
    'No transaction with this hash signed by the caller’s wallet went through Laurel (one the caller only sent for another wallet is that wallet’s)',
});

export class TransactionNotFoundError extends TRANSACTION_NOT_FOUND.Error {
  constructor(hash: string, account: string) {
    super(`transaction not found: ${account} signed no transaction ${hash} sent through this service`);
  }
}

/**
 * A signed transaction whose nonce is above its sender's next nonce on the chain (rule 4 in ./building/nonce-reservations.ts),
 * the sender (the transaction's signer) named. Shape A: `{status:'failed', error,
 * reason:'nonce_gap', transactionHash, sender, next_nonce, missing_nonces}`.
 */
export const NONCE_GAP = defineFailure({
  status: 409,
  codes: ['nonce_gap'],
  description:
    'The nonces before this transaction’s are missing (`reason: nonce_gap`, `next_nonce`, `missing_nonces`): nothing was sent',
});

export class NonceGapError extends NONCE_GAP.Error {
  constructor(transactionHash: string, sender: string, nonce: number, nextNonce: number) {
    const missing = Array.from({ length: nonce - nextNonce }, (_, i) => nextNonce + i);
    const named = missing.length === 1 ? `nonce ${nextNonce} is` : `nonces ${nextNonce} to ${nonce - 1} are`;
    super(
      `Nonce ${nonce} of ${sender} (the transaction's signer) cannot be mined yet: its ${named} missing ` +
        `(built but never signed or sent?). Send the missing transaction${missing.length === 1 ? '' : 's'}, ` +
        `release the unsent builds (DELETE /v1/transactions/reservations), or build again: ${sender}'s next build uses nonce ${nextNonce}. ` +
        'Then send this transaction again.',
      {
        reason: 'nonce_gap',
        transactionHash,
        sender,
        next_nonce: nextNonce,
        missing_nonces: missing.slice(0, 100),
      },
    );
  }
}
