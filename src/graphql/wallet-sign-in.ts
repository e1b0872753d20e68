/**
 * "Sign in with a wallet", shared by the landing page and the Playground: a button that runs the
 * client's `signIn` (from its browser bundle, served by Laurel) with the page's EIP-1193 wallet
 * (`window.ethereum`: MetaMask and the like), then announces the new key to the page with a
 * `laurel:signed-in` event ({apiKey, address, scope}) for the page to use.
 *
 * Keys made here are read-only unless the user picks a full key, and expire after a day: the page
 * holds the key in its script (and GraphiQL may keep its headers in localStorage), so a key read
 * from a browser can read and nothing else (no builds, webhooks, secrets or revocations), and stops
 * working by itself. A key of the same wallet and scope is reused within the tab's session
 * (sessionStorage), so clicking again does not pile keys up against API_KEYS_PER_WALLET.
 */

/** How long a key made in a browser page lives. */
export const BROWSER_KEY_SECONDS = 24 * 60 * 60;

/** Where the landing page hands a new key to the Playground it links to (same origin, same tab). */
export const PLAYGROUND_KEY_HANDOFF = 'laurel:playground-key';

/** What the page tells a user without a browser wallet. */
export const NO_WALLET =
  'No wallet in this browser (window.ethereum). Install one such as MetaMask, or get a key without ' +
  'one: `laurel key` (the client’s command-line tool), or POST /key/challenge then POST /key/verify ' +
  '(see /docs), and paste it into X-API-KEY.';

/** A value inside an inline <script>: JSON, with `<` escaped so no `</script>` ends it early. */
export const scriptValue = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const SIGN_IN_STYLE = `
.laurel-sign-in{font:14px/1.4 system-ui,sans-serif;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.4rem .75rem;border-bottom:1px solid #ddd}
.laurel-sign-in button{font:inherit;padding:.2rem .7rem;cursor:pointer}
.laurel-sign-in select{font:inherit}
.laurel-sign-in [role=status]{color:#444}`;

/**
 * The button, the choice of key and a status line. `problem`: why the client's bundle cannot be
 * served (the button is then disabled and the problem shown).
 */
export function signInMarkup(problem: string | null): string {
  return `<div class="laurel-sign-in">
<button id="laurel-sign-in" type="button" disabled>Sign in with a wallet</button>
<label>for a <select id="laurel-key-scope" aria-label="Key scope">
<option value="read" selected>read-only key (reads, subscriptions)</option>
<option value="full">full key (also builds, webhooks, revoking keys)</option>
</select></label>
<span id="laurel-sign-in-status" role="status">${problem ? escapeHtml(`Sign-in is unavailable: ${problem}`) : ''}</span>
</div>`;
}

/** The module script of the button (none when the bundle cannot be served). */
export function signInScript(bundleUrl: string, problem: string | null): string {
  if (problem) return '';
  const script = `
import { Laurel, eip1193Signer, signIn } from ${scriptValue(bundleUrl)};
const button = document.getElementById('laurel-sign-in');
const scopeChoice = document.getElementById('laurel-key-scope');
const status = document.getElementById('laurel-sign-in-status');
const say = (text) => { status.textContent = text; };
// The tab's keys, by Laurel, wallet and scope: signing in again reuses a key Laurel still accepts.
const store = {
  get: (slot) => sessionStorage.getItem('laurel:key ' + slot),
  set: (slot, key) => sessionStorage.setItem('laurel:key ' + slot, key),
};
if (!window.ethereum) say(${scriptValue(NO_WALLET)});
button.disabled = false;
button.addEventListener('click', async () => {
  const wallet = window.ethereum;
  if (!wallet) return say(${scriptValue(NO_WALLET)});
  const scope = scopeChoice.value === 'full' ? 'full' : 'read';
  button.disabled = true;
  say('Waiting for the wallet: choose the account, then sign the message…');
  try {
    const laurel = new Laurel({ url: location.origin });
    const signedIn = await signIn(laurel, eip1193Signer(wallet), {
      scope,
      expiresInSeconds: ${BROWSER_KEY_SECONDS},
      store,
    });
    const kind = scope === 'read' ? 'a read-only key' : 'a full key';
    say('Signed in as ' + signedIn.address + ': ' + kind + (signedIn.reused ? ' (this tab’s)' : ', for 24 hours') + '.');
    document.dispatchEvent(new CustomEvent('laurel:signed-in', { detail: { ...signedIn, scope } }));
  } catch (error) {
    const refused = error && error.code === 4001 ? ' (refused in the wallet)' : '';
    say('Sign-in failed' + refused + ': ' + (error && error.message ? error.message : String(error)));
  } finally {
    button.disabled = false;
  }
});`;
  return `<script type="module">${script}</script>`;
}
