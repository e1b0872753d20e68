import path from 'node:path';
import express, { type Router } from 'express';
import { serveClientBundle, type ClientBundle } from './client-bundle';
import { PLAYGROUND_KEY_HANDOFF, SIGN_IN_STYLE, signInMarkup, signInScript } from './wallet-sign-in';

/** A package's folder, found without loading its entry point. */
function packageFolder(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

/**
 * The files the page loads, served from the npm packages (no CDN): GraphiQL's browser build and
 * the React it expects as globals.
 */
const ASSETS: Record<string, string> = {
  'react.js': path.join(packageFolder('react'), 'umd/react.production.min.js'),
  'react-dom.js': path.join(packageFolder('react-dom'), 'umd/react-dom.production.min.js'),
  'graphiql.js': path.join(packageFolder('graphiql'), 'graphiql.min.js'),
  'graphiql.css': path.join(packageFolder('graphiql'), 'graphiql.min.css'),
  // graphql-ws's browser build: the Playground's subscriptions (window.graphqlWs).
  'graphql-ws.js': path.join(packageFolder('graphql-ws'), 'umd/graphql-ws.min.js'),
};

/** What the editor shows first: one request for a profile and a leaderboard together. */
const FIRST_QUERY = `# "Sign in with a wallet" above puts a key into X-API-KEY in the Headers tab below;
# or paste yours (from \`laurel key\`, or POST /key/challenge then POST /key/verify: see /docs).
# Subscriptions run here too, e.g. subscription { profileChanged(chain: "local") { xp_balance } }
query ProfileAndLeaderboard($user: String) {
  profile(chain: "local", user_id: $user) {
    user_id
    xp_balance
    collected_badges { id name }
    completed_actions { name xp_rewarded createdAt }
  }
  leaderboard(chain: "local", page_size: 5) {
    user
    xp_rewarded
    profile { collected_badges { name } }
  }
}
`;

/**
 * The GraphQL Playground: GraphiQL pointed at `endpoint`, with a Headers editor holding
 * `X-API-KEY` (kept in the browser's local storage when the user allows it in settings), and
 * "Sign in with a wallet" above it, which puts a new key into that editor (wallet-sign-in.ts).
 * `bundleProblem`: why the client's bundle (`${assetsPath}/laurel-client.js`) cannot be served.
 */
export function playgroundPage(endpoint: string, assetsPath: string, bundleProblem: string | null): string {
  const props = {
    defaultQuery: FIRST_QUERY,
    // An empty key counts as none, so the schema loads before the user has pasted theirs.
    defaultHeaders: JSON.stringify({ 'X-API-KEY': '' }, null, 2),
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
  };
  // Subscriptions go over WebSocket to the same path, with the key of the Headers tab in the
  // connection_init payload (one connection per key); everything else over HTTP.
  const script = `
const httpFetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)} });
const wsUrl = new URL(${JSON.stringify(endpoint)}, location.href).href.replace(/^http/, 'ws');
let ws = null;
let wsKey = null;
function isSubscription(params) {
  const source = params.query.replace(/#[^\\n]*/g, '');
  if (!params.operationName) return /^\\s*subscription\\b/.test(source);
  const names = Array.from(source.matchAll(/\\bsubscription\\s+(\\w+)/g), (match) => match[1]);
  return names.includes(params.operationName);
}
function fetcher(params, options) {
  if (!isSubscription(params)) return httpFetcher(params, options);
  const headers = (options && options.headers) || {};
  const key = Object.keys(headers).find((name) => name.toLowerCase() === 'x-api-key');
  const apiKey = key ? headers[key] : '';
  if (!ws || wsKey !== apiKey) {
    if (ws) ws.dispose();
    wsKey = apiKey;
    ws = graphqlWs.createClient({ url: wsUrl, connectionParams: { 'X-API-KEY': apiKey }, retryAttempts: 0 });
  }
  return ws.iterate(params);
}
// A key from "Sign in with a wallet" (here, or handed over by the landing page) goes into the
// Headers editor, kept with the other headers there, so the next operation runs with it.
let headerEditor = null;
let pendingKey = sessionStorage.getItem(${JSON.stringify(PLAYGROUND_KEY_HANDOFF)});
sessionStorage.removeItem(${JSON.stringify(PLAYGROUND_KEY_HANDOFF)});
function putKey(apiKey) {
  if (!headerEditor) return void (pendingKey = apiKey);
  let headers = {};
  try {
    const parsed = JSON.parse(headerEditor.getValue() || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) headers = parsed;
  } catch (_) {
    // not JSON: replaced by the key alone
  }
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'x-api-key') delete headers[name];
  headerEditor.setValue(JSON.stringify(Object.assign({ 'X-API-KEY': apiKey }, headers), null, 2));
}
document.addEventListener('laurel:signed-in', (event) => putKey(event.detail.apiKey));
// Rendered inside GraphiQL (its toolbar) for one thing: its Headers editor.
function HeadersEditorBridge() {
  const editor = GraphiQL.React.useEditorContext({ nonNull: true }).headerEditor;
  React.useEffect(() => {
    headerEditor = editor;
    if (editor && pendingKey) {
      putKey(pendingKey);
      pendingKey = null;
    }
  }, [editor]);
  return null;
}
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(
    GraphiQL,
    Object.assign({ fetcher: fetcher, toolbar: { additionalComponent: HeadersEditorBridge } }, ${JSON.stringify(props)}),
  ),
);`;
  return `<!doctype html>
<html><head><meta charset="utf-8"/><title>Laurel GraphQL Playground</title>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<link rel="icon" href="data:,"/>
<link rel="stylesheet" href="${assetsPath}/graphiql.css"/>
<style>body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
#graphiql { flex: 1; min-height: 0; }${SIGN_IN_STYLE}</style></head>
<body>${signInMarkup(bundleProblem)}<div id="graphiql">Loading…</div>
<script src="${assetsPath}/react.js"></script>
<script src="${assetsPath}/react-dom.js"></script>
<script src="${assetsPath}/graphiql.js"></script>
<script src="${assetsPath}/graphql-ws.js"></script>
<script>${script.replace(/</g, '\\u003c')}</script>
${signInScript(`${assetsPath}/laurel-client.js`, bundleProblem)}</body></html>`;
}

export function playgroundAssets(clientBundle: ClientBundle): Router {
  const router = express.Router();
  router.get('/laurel-client.js', serveClientBundle(clientBundle));
  for (const [name, file] of Object.entries(ASSETS)) {
    router.get(`/${name}`, (_req, res, next) => {
      res.sendFile(file, { immutable: true, maxAge: '7d' }, (error) => error && next(error));
    });
  }
  return router;
}
