import { Transaction } from 'ethers';
import { remembered } from '../remembered';

/** Signed transactions parsed lately: validation, then the send, read the same one. */
const PARSED_KEPT = 1024;

/**
 * A signed transaction (0x hex, as eth_sendRawTransaction takes it) parsed once, its signer and
 * hash computed once. ethers computes `from` (a secp256k1 recovery, about 2 ms of CPU) and `hash`
 * (the whole encoding again, and keccak) on every read, and a send read them a dozen times; the
 * values are fixed on the object instead, and the parse is kept for the next reads of the same
 * string (the schema's check, then the send). Throws what Transaction.from throws. The object is
 * shared: never change it.
 */
export const parseSignedTransaction = remembered((hex: string): Transaction => {
  const transaction = Transaction.from(hex);
  Object.defineProperties(transaction, {
    from: { value: transaction.from },
    hash: { value: transaction.hash },
  });
  return transaction;
}, PARSED_KEPT);
