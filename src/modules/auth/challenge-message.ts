import { Signature } from 'ethers';
import { SiweMessage } from 'siwe';

/**
 * The text a wallet signs to obtain an API key: a Sign-In with Ethereum (EIP-4361) message, built
 * and verified by the `siwe` library. It names the domain and URI the request came to, so a wallet
 * can warn when another site asks for it, and a challenge relayed by such a site is refused when
 * verified through another domain.
 */
export interface ChallengeFields {
  /** EIP-4361 domain: the host (and port) the request named. */
  domain: string;
  /** The origin the request came to (`https://host`). */
  uri: string;
  /** A Laurel API key is not bound to a chain: the id of the first chain Laurel serves. */
  chainId: number;
  /** Checksummed wallet address. */
  address: string;
  /** Random, alphanumeric (EIP-4361: at least 8 characters). */
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

export const CHALLENGE_STATEMENT =
  'Sign this message to receive a Laurel API key for this address. ' +
  'Signing is free: it sends no transaction and costs no gas.';

/** The message, or null when the domain or URI is not one EIP-4361 accepts (a malformed Host). */
export function buildChallengeMessage(fields: ChallengeFields): string | null {
  try {
    return new SiweMessage({
      domain: fields.domain,
      address: fields.address,
      statement: CHALLENGE_STATEMENT,
      uri: fields.uri,
      version: '1',
      chainId: fields.chainId,
      nonce: fields.nonce,
      issuedAt: fields.issuedAt.toISOString(),
      expirationTime: fields.expiresAt.toISOString(),
    }).prepareMessage();
  } catch {
    return null;
  }
}

/** The order of secp256k1: a signature's `r` lies below it. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Whether `signature` is the EIP-191 signature of `message` by the address it names, and the
 * message names `domain` and has not expired: one signer recovery, by `siwe`. A signature that is
 * not even one (wrong length, `r` out of range, non-canonical `s`) is refused before: siwe would
 * log its recovery error.
 */
export async function verifyChallengeSignature(
  message: string,
  signature: string,
  domain: string,
): Promise<boolean> {
  try {
    const parsed = Signature.from(signature);
    const r = BigInt(parsed.r);
    // `s` is checked for canonical form on access.
    if (r === 0n || r >= CURVE_ORDER || !parsed.s) return false;
  } catch {
    return false;
  }
  try {
    const result = await new SiweMessage(message).verify({ signature, domain }, { suppressExceptions: true });
    return result.success;
  } catch {
    return false;
  }
}
