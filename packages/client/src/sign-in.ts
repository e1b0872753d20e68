/**
 * Sign-in: an API key for a wallet, from the challenge it signs (POST /key/challenge, then
 * POST /key/verify). The key can be kept where the caller says (a file, localStorage, a secret
 * store): the next sign-in reuses it while Laurel still accepts it, so keys do not pile up against
 * the wallet's limit.
 */
import { LaurelError } from './errors.js';
import type { Laurel } from './laurel.js';
import { messageSigner, type EthersSignerLike, type MessageSigner, type ViemAccountLike } from './signers.js';

/** Where the caller keeps keys between runs, by slot (Laurel's URL, the wallet, the scope). */
export interface KeyStore {
  get(slot: string): string | undefined | null | Promise<string | undefined | null>;
  set(slot: string, apiKey: string): void | Promise<void>;
}

export interface SignInOptions {
  /** Keep and reuse the key here. */
  store?: KeyStore;
  /** `read`: a key that only reads (safe in a browser page); default `full`. */
  scope?: 'full' | 'read';
  /** Seconds until the key expires (default: never). */
  expiresInSeconds?: number;
}

export interface SignedIn {
  apiKey: string;
  /** The wallet's address, as the wallet gave it. */
  address: string;
  /** True when the key came from the store and Laurel still accepts it. */
  reused: boolean;
}

/** The store's slot of a wallet's key at a Laurel. */
export const keySlot = (laurel: Laurel, address: string, scope: 'full' | 'read' = 'full'): string =>
  `${laurel.url} ${address.toLowerCase()} ${scope}`;

/** Signs in with `wallet` and sets the key on `laurel`; returns it. */
export async function signIn(
  laurel: Laurel,
  wallet: MessageSigner | EthersSignerLike | ViemAccountLike,
  options: SignInOptions = {},
): Promise<SignedIn> {
  const signer = messageSigner(wallet);
  const address = await signer.getAddress();
  const scope = options.scope ?? 'full';
  const slot = keySlot(laurel, address, scope);
  const kept = await options.store?.get(slot);
  if (kept && (await accepted(laurel, kept))) {
    laurel.apiKey = kept;
    return { apiKey: kept, address, reused: true };
  }
  const { challenge } = await laurel.call(
    laurel.api.POST('/key/challenge', { body: { public_address: address } }),
  );
  const { api_key: apiKey } = await laurel.call(
    laurel.api.POST('/key/verify', {
      body: {
        public_address: address,
        signature: await signer.signMessage(challenge),
        ...(options.scope ? { scope: options.scope } : {}),
        ...(options.expiresInSeconds !== undefined ? { expires_in_seconds: options.expiresInSeconds } : {}),
      },
    }),
  );
  await options.store?.set(slot, apiKey);
  laurel.apiKey = apiKey;
  return { apiKey, address, reused: false };
}

/** Whether Laurel still takes `apiKey` (not revoked, not expired, and this Laurel's). */
async function accepted(laurel: Laurel, apiKey: string): Promise<boolean> {
  try {
    await laurel.call(laurel.api.GET('/v1/keys', { headers: { 'x-api-key': apiKey } }));
    return true;
  } catch (error) {
    if (error instanceof LaurelError && error.status === 401) return false;
    throw error;
  }
}
