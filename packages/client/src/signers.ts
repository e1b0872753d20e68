/**
 * The wallets the client signs with, whatever library holds the key: an ethers `Signer`, a viem
 * account, or an EIP-1193 provider (a browser wallet such as MetaMask). Each is read through the
 * small interfaces below, so the client depends on none of them.
 */

/** Signs an EIP-191 message (personal_sign): what sign-in needs. */
export interface MessageSigner {
  getAddress(): Promise<string>;
  signMessage(message: string): Promise<string>;
}

/** An ethers v6 `Signer` (a `Wallet`, a `JsonRpcSigner`…), as far as the client uses it. */
export interface EthersSignerLike {
  getAddress(): Promise<string>;
  signMessage(message: string | Uint8Array): Promise<string>;
  signTransaction(transaction: Record<string, unknown>): Promise<string>;
}

/** A viem local account (`privateKeyToAccount`, `mnemonicToAccount`), as far as the client uses it. */
export interface ViemAccountLike {
  address: `0x${string}`;
  signMessage(args: { message: string }): Promise<`0x${string}`>;
  signTransaction?(transaction: Record<string, unknown>): Promise<`0x${string}`>;
}

/** An EIP-1193 provider: `window.ethereum`, or any object with `request`. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | Record<string, unknown> }): Promise<unknown>;
}

const isViemAccount = (wallet: object): wallet is ViemAccountLike =>
  typeof (wallet as ViemAccountLike).address === 'string' && !('getAddress' in wallet);

/** A message signer from an ethers Signer or a viem account. */
export function messageSigner(wallet: EthersSignerLike | ViemAccountLike | MessageSigner): MessageSigner {
  if (isViemAccount(wallet)) {
    return {
      getAddress: async () => wallet.address,
      signMessage: (message) => wallet.signMessage({ message }),
    };
  }
  return { getAddress: () => wallet.getAddress(), signMessage: (message) => wallet.signMessage(message) };
}

/**
 * A message signer from an EIP-1193 provider: asks the wallet for its account
 * (`eth_requestAccounts`) and signs with `personal_sign`, as a browser wallet expects.
 */
export function eip1193Signer(provider: Eip1193Provider, address?: string): MessageSigner {
  let account: Promise<string> | undefined = address ? Promise.resolve(address) : undefined;
  const getAddress = () =>
    (account ??= provider.request({ method: 'eth_requestAccounts' }).then((accounts) => {
      const first = Array.isArray(accounts) ? accounts[0] : undefined;
      if (typeof first !== 'string') throw new Error('the wallet gave no account');
      return first;
    }));
  return {
    getAddress,
    async signMessage(message) {
      const from = await getAddress();
      const hex = `0x${Array.from(new TextEncoder().encode(message), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
      const signature = await provider.request({ method: 'personal_sign', params: [hex, from] });
      if (typeof signature !== 'string') throw new Error('the wallet gave no signature');
      return signature;
    },
  };
}
