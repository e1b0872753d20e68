/** What the transaction lifecycle can fail with: each documented entry and the error it throws. */
import { DEV_CHAIN_IDS } from '../../chain/finality';
import { TRANSACTION_REVERTED, type TransactionErrorDetails } from '../../chain/reverts';
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

/**
 * The database went away during a send once the transaction was recorded: before Laurel could undo
 * the record of a send that did not go out (refused, or the node unreachable), or after it went out
 * (its mark, the wait for its receipt, the receipt's record): 503, Shape A `{status:'failed', error,
 * chain, transactionHash}`. The record stays, and Laurel follows it: a receipt is recorded when
 * mined, and a transaction the node does not have is sent (./sending/rebroadcaster.ts). So the
 * answer must not say that nothing was done.
 */
export const RECORD_KEPT = defineFailure({
  status: 503,
  codes: ['database_unavailable'],
  description:
    '`Database unavailable; the transaction stays recorded…` (with `chain` and `transactionHash`): the database went away during the send, once the transaction was recorded (whether or not it went out); Laurel keeps following it and sends it if the node does not have it (sending it again is safe)',
});

export class RecordKeptError extends RECORD_KEPT.Error {
  constructor(chain: string, transactionHash: string) {
    super(
      'Database unavailable; the transaction stays recorded: Laurel keeps following it and sends it if the node does not have it (sending it again is safe)',
      { chain, transactionHash },
    );
    this.headers['Retry-After'] = '1';
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
 * reason:'nonce_gap', transactionHash, sender, next_nonce, missing_nonces, rebroadcasting}`;
 * `rebroadcasting` lists the missing nonces that Laurel sent and the chain dropped, which Laurel
 * sends again (`{nonce, transactionHash}`): those were not the client's to send.
 */
export const NONCE_GAP = defineFailure({
  status: 409,
  codes: ['nonce_gap'],
  description:
    'The nonces before this transaction’s are missing (`reason: nonce_gap`, `next_nonce`, `missing_nonces`; `rebroadcasting`: those Laurel sent, the chain dropped, and Laurel sends again): nothing was sent',
});

/** A missing nonce whose transaction Laurel sent, which the chain dropped, and which Laurel sends again. */
export interface RebroadcastingNonce {
  nonce: number;
  transactionHash: string;
}

const listed = (items: readonly (number | string)[]) =>
  items.length === 1 ? String(items[0]) : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** The most nonces a nonce-gap answer lists: a signer may sign any nonce, however far ahead. */
const LISTED_NONCES = 100;

/**
 * The first LISTED_NONCES nonces from `from` up to `to` (excluded) that `skip` does not hold, and
 * how many there are in all: never the whole range, which a far-ahead nonce makes endless.
 */
function noncesBetween(from: number, to: number, skip: ReadonlySet<number>) {
  const first: number[] = [];
  for (let nonce = from; nonce < to && first.length < LISTED_NONCES; nonce++)
    if (!skip.has(nonce)) first.push(nonce);
  const skipped = [...skip].filter((nonce) => nonce >= from && nonce < to).length;
  return { first, total: to - from - skipped };
}

/** `first` listed, with how many more there are. */
const listedOf = ({ first, total }: { first: number[]; total: number }) =>
  total > first.length ? `${first.join(', ')} and ${total - first.length} more` : listed(first);

export class NonceGapError extends NONCE_GAP.Error {
  constructor(
    transactionHash: string,
    sender: string,
    nonce: number,
    nextNonce: number,
    rebroadcasting: readonly RebroadcastingNonce[] = [],
  ) {
    const missing = noncesBetween(nextNonce, nonce, new Set());
    const named = missing.total === 1 ? `nonce ${nextNonce} is` : `nonces ${nextNonce} to ${nonce - 1} are`;
    const unsentAdvice = (firstUnsent: number, count: number) =>
      `Send the missing transaction${count === 1 ? '' : 's'}, release the unsent builds ` +
      `(DELETE /v1/transactions/reservations), or build again: ${sender}'s next build uses nonce ${firstUnsent}.`;
    let message: string;
    if (rebroadcasting.length === 0) {
      message =
        `Nonce ${nonce} of ${sender} (the transaction's signer) cannot be mined yet: its ${named} missing ` +
        `(built but never signed or sent?). ${unsentAdvice(nextNonce, missing.total)} Then send this transaction again.`;
    } else {
      const unsent = noncesBetween(nextNonce, nonce, new Set(rebroadcasting.map((held) => held.nonce)));
      const several = rebroadcasting.length > 1;
      message =
        `Nonce ${nonce} of ${sender} (the transaction's signer) cannot be mined yet: its ${named} missing. ` +
        `Laurel sent nonce${several ? 's' : ''} ${listed(rebroadcasting.map((held) => held.nonce))} ` +
        `(${listed(rebroadcasting.map((held) => held.transactionHash))}) and the chain dropped ${several ? 'them' : 'it'} ` +
        `(a reorganisation, or the node's pool): Laurel is sending ${several ? 'them' : 'it'} again ` +
        `(GET /v1/transactions/{hash} follows ${several ? 'each' : 'it'}). ` +
        (unsent.total === 0
          ? ''
          : `Nonce${unsent.total === 1 ? '' : 's'} ${listedOf(unsent)} ${unsent.total === 1 ? 'was' : 'were'} ` +
            `built but never signed or sent? ${unsentAdvice(unsent.first[0], unsent.total)} `) +
        `Send this transaction again once ${several ? 'they are' : 'it is'} mined.`;
    }
    super(message, {
      reason: 'nonce_gap',
      transactionHash,
      sender,
      next_nonce: nextNonce,
      missing_nonces: missing.first,
      rebroadcasting: rebroadcasting.slice(0, LISTED_NONCES),
    });
  }
}

/** What a build's sender holds and needs, in wei (decimal strings): `insufficient_funds` of the failure. */
export interface InsufficientFunds {
  sender: string;
  /** The sender's balance (pending state). */
  balance: string;
  /** The most the transaction can cost: gas limit × max fee per gas (no build sends value). */
  cost: string;
  /** cost − balance. */
  missing: string;
  gas_limit: string;
  max_fee_per_gas: string;
}

/**
 * A build whose sender cannot pay for it: 422 `transaction_error` (the builders' failure, so every
 * path that builds already declares it), with the documented `transaction_error` fields and
 * `insufficient_funds`. Thrown before a nonce is reserved.
 */
export class InsufficientFundsError extends TRANSACTION_REVERTED.Error {
  constructor(funds: InsufficientFunds, context: { chainId: number; to: string; functionName: string }) {
    const reason = `insufficient funds for gas * price + value: have ${funds.balance} want ${funds.cost}`;
    const fund = DEV_CHAIN_IDS.includes(context.chainId)
      ? " On this development chain, fund it with the node's JSON-RPC method anvil_setBalance " +
        `(params ["${funds.sender}", "<wei as 0x hex>"]; for the embedded \`local\` chain the node is the ` +
        "anvil URL of Laurel's start-up line `chain local … anvil on http://…`), or use one of anvil's dev " +
        'accounts (mnemonic `test test test test test test test test test test test junk`, 10 000 ETH each).'
      : '';
    super(
      `${funds.sender} cannot pay for "${context.functionName}": it holds ${funds.balance} wei, and the ` +
        `transaction may cost up to ${funds.cost} wei (gas limit ${funds.gas_limit} × max fee per gas ` +
        `${funds.max_fee_per_gas}); ${funds.missing} wei missing. Fund the wallet and build again.${fund}`,
      {
        transaction_error: {
          reason,
          message: `The transaction "${context.functionName}" cannot be paid for: ${reason}`,
          detailsMessage: reason,
          contract_address: context.to,
          chain_id: context.chainId,
          function_name: context.functionName,
          data: { abiItem: null, errorName: null },
        } satisfies TransactionErrorDetails,
        insufficient_funds: funds,
      },
    );
  }
}
