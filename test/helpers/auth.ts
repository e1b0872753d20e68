import type { HDNodeWallet, Wallet } from 'ethers';

async function postJson(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/**
 * A new API key for `wallet`, obtained the way a client does: POST /key/challenge, sign the
 * challenge with the wallet (EIP-191 personal_sign), POST /key/verify (with `options`: the key's
 * scope and lifetime). `url` is Laurel's base URL (e.g. `laurel.url` of startTestLaurel()).
 */
export async function issueApiKey(
  url: string,
  wallet: Wallet | HDNodeWallet,
  options: { scope?: 'full' | 'read'; expires_in_seconds?: number } = {},
): Promise<string> {
  const challenge = await postJson(url, '/key/challenge', { public_address: wallet.address });
  const text = (challenge.body as { challenge?: unknown } | null)?.challenge;
  if (challenge.status !== 200 || typeof text !== 'string') {
    throw new Error(`POST /key/challenge answered ${challenge.status}: ${JSON.stringify(challenge.body)}`);
  }
  const signature = await wallet.signMessage(text);
  const verify = await postJson(url, '/key/verify', {
    signature,
    public_address: wallet.address,
    ...options,
  });
  const apiKey = (verify.body as { api_key?: unknown } | null)?.api_key;
  if (verify.status !== 200 || typeof apiKey !== 'string') {
    throw new Error(`POST /key/verify answered ${verify.status}: ${JSON.stringify(verify.body)}`);
  }
  return apiKey;
}
