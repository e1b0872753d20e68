import type { RequestHandler } from 'express';
import {
  PLAYGROUND_KEY_HANDOFF,
  SIGN_IN_STYLE,
  scriptValue,
  signInMarkup,
  signInScript,
} from '../graphql/wallet-sign-in';
import { LAUREL_VERSION } from '../version';

interface Link {
  href: string;
  title: string;
}

/** What `GET /` lists: the API's pages when this process serves the API, and what every process has. */
export function landingLinks(options: { api: boolean; metrics: string | null }): Link[] {
  return [
    ...(options.api
      ? [
          { href: '/docs', title: 'API reference (REST)' },
          { href: '/graphql', title: 'GraphQL Playground' },
          { href: '/openapi.json', title: 'OpenAPI document' },
        ]
      : []),
    { href: '/health', title: 'Health (liveness)' },
    { href: '/ready', title: 'Readiness' },
    ...(options.metrics ? [{ href: options.metrics, title: 'Prometheus metrics' }] : []),
  ];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where the landing page's "Sign in with a wallet" loads the client from (a process serving the API). */
export interface LandingSignIn {
  bundleUrl: string;
  /** Why the client's bundle cannot be served, shown instead of a working button. */
  problem: string | null;
}

/**
 * "Get an API key": the wallet sign-in, then the key shown once with a copy button and a link to
 * the Playground, which the key goes to (sessionStorage, never the URL: URLs end up in histories
 * and logs).
 */
function keySection(signIn: LandingSignIn): string {
  const script = `<script type="module">
const shown = document.getElementById('laurel-new-key');
document.addEventListener('laurel:signed-in', (event) => {
  const { apiKey } = event.detail;
  document.getElementById('laurel-key-value').textContent = apiKey;
  sessionStorage.setItem(${scriptValue(PLAYGROUND_KEY_HANDOFF)}, apiKey);
  shown.hidden = false;
});
document.getElementById('laurel-copy-key').addEventListener('click', async (event) => {
  const key = document.getElementById('laurel-key-value').textContent;
  await navigator.clipboard.writeText(key).then(
    () => { event.target.textContent = 'Copied'; },
    () => { event.target.textContent = 'Copy failed: select the key and copy it'; },
  );
});
</script>`;
  return `<h2>Get an API key</h2>
<p>Sign a message with your browser wallet (no transaction, no gas) and get a key for this Laurel.</p>
${signInMarkup(signIn.problem)}
<div id="laurel-new-key" hidden>
<p>Your key, shown this once (Laurel keeps only its hash): <code id="laurel-key-value"></code>
<button id="laurel-copy-key" type="button">Copy</button></p>
<p><a id="laurel-open-playground" href="/graphql">Open the GraphQL Playground with this key</a>
(it goes into the X-API-KEY header there), or send it in X-API-KEY to /v1.</p>
</div>
${signInScript(signIn.bundleUrl, signIn.problem)}${signIn.problem ? '' : script}`;
}

/**
 * `GET /`: the service's name and version and where to go from here: HTML for a browser, JSON for
 * `Accept: application/json` (and any other client that does not ask for HTML). `signIn`: the
 * "Get an API key" section, where this process serves the API.
 */
export function landingPage(links: Link[], signIn: LandingSignIn | null = null): RequestHandler {
  const json = { name: 'Laurel', version: LAUREL_VERSION, links };
  const html = `<!doctype html>
<html><head><meta charset="utf-8"/><title>Laurel ${escapeHtml(LAUREL_VERSION)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"/><link rel="icon" href="data:,"/>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}
code{word-break:break-all}${signIn ? SIGN_IN_STYLE : ''}</style></head>
<body><h1>Laurel <small>${escapeHtml(LAUREL_VERSION)}</small></h1>
<p>A rewards backend for applications that record what their users do on an EVM blockchain.</p>
<ul>${links.map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.title)}</a> <code>${escapeHtml(link.href)}</code></li>`).join('')}</ul>
${signIn ? keySection(signIn) : ''}
</body></html>`;
  return (req, res) => {
    if (req.accepts(['application/json', 'text/html']) === 'text/html') res.type('html').send(html);
    else res.json(json);
  };
}
