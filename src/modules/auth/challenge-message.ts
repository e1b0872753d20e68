/**
 * The text a wallet signs to obtain an API key: an EIP-4361 ("Sign-In with Ethereum") style
 * message, so wallets show the user who asks, for which address, and until when.
 *
 * It names no chain: a Laurel API key is not bound to a chain. The service name stands where
 * EIP-4361 puts the requesting domain, because Laurel does not know the host a client used.
 */
export interface ChallengeFields {
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

export function buildChallengeMessage(fields: ChallengeFields): string {
  return [
    'Laurel wants you to sign in with your Ethereum account:',
    fields.address,
    '',
    CHALLENGE_STATEMENT,
    '',
    'Version: 1',
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt.toISOString()}`,
    `Expiration Time: ${fields.expiresAt.toISOString()}`,
  ].join('\n');
}
