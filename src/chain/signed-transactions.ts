import { Transaction, getAddress, getBytes, keccak256 } from 'ethers';
import { ecdsaRecover } from 'secp256k1';
import { remembered } from '../cache-on-success';

/** Signed transactions parsed lately: validation, then the send, read the same one. */
const PARSED_KEPT = 1024;

/**
 * The address that signed `transaction`, recovered by libsecp256k1 (the `secp256k1` package's
 * native binding: a fraction of the CPU of ethers' JavaScript recovery, otherwise the largest
 * cost of a send). On a platform without its prebuilt binding the package falls back to
 * JavaScript (elliptic). A signature it refuses is left to ethers, which throws its own error.
 */
function signerOf(transaction: Transaction): string {
  const signature = transaction.signature!;
  let publicKey: Uint8Array;
  try {
    const rs = new Uint8Array(64);
    rs.set(getBytes(signature.r), 0);
    rs.set(getBytes(signature.s), 32);
    publicKey = ecdsaRecover(rs, signature.yParity, getBytes(transaction.unsignedHash), false);
  } catch {
    return transaction.from!;
  }
  // The address: the last 20 bytes of the keccak256 of the uncompressed key without its 0x04 prefix.
  return getAddress(`0x${keccak256(publicKey.subarray(1)).slice(-40)}`);
}

/**
 * A signed transaction (0x hex, as eth_sendRawTransaction takes it) parsed once, its signer and
 * hash computed once. ethers computes `from` (a secp256k1 recovery) and `hash` (the whole encoding
 * again, and keccak) on every read, and a send read them a dozen times; the values are fixed on
 * the object instead, and the parse is kept for the next reads of the same string (the schema's
 * check, then the send). Throws what Transaction.from throws. The object is shared: never change
 * it.
 */
export const parseSignedTransaction = remembered((hex: string): Transaction => {
  const transaction = Transaction.from(hex);
  const signed = transaction.signature !== null;
  Object.defineProperties(transaction, {
    from: { value: signed ? signerOf(transaction) : null },
    // The hash of the bytes as sent (what the node reports), without ethers' encoding them again.
    hash: { value: signed ? keccak256(hex) : null },
  });
  return transaction;
}, PARSED_KEPT);
