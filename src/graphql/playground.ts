import path from 'node:path';
import express, { type Router } from 'express';

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
};

/** What the editor shows first: one request for a profile and a leaderboard together. */
const FIRST_QUERY = `# Paste your API key into X-API-KEY in the Headers tab below
# (get one with POST /key/challenge, then POST /key/verify; see /docs).
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
 * `X-API-KEY` (kept in the browser's local storage when the user allows it in settings).
 */
export function playgroundPage(endpoint: string, assetsPath: string): string {
  const props = {
    defaultQuery: FIRST_QUERY,
    // An empty key counts as none, so the schema loads before the user has pasted theirs.
    defaultHeaders: JSON.stringify({ 'X-API-KEY': '' }, null, 2),
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
  };
  const script = `
const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)} });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, Object.assign({ fetcher: fetcher }, ${JSON.stringify(props)})),
);`;
  return `<!doctype html>
<html><head><meta charset="utf-8"/><title>Laurel GraphQL Playground</title>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<link rel="icon" href="data:,"/>
<link rel="stylesheet" href="${assetsPath}/graphiql.css"/>
<style>body { margin: 0; } #graphiql { height: 100vh; }</style></head>
<body><div id="graphiql">Loading…</div>
<script src="${assetsPath}/react.js"></script>
<script src="${assetsPath}/react-dom.js"></script>
<script src="${assetsPath}/graphiql.js"></script>
<script>${script.replace(/</g, '\\u003c')}</script></body></html>`;
}

export function playgroundAssets(): Router {
  const router = express.Router();
  for (const [name, file] of Object.entries(ASSETS)) {
    router.get(`/${name}`, (_req, res, next) => {
      res.sendFile(file, { immutable: true, maxAge: '7d' }, (error) => error && next(error));
    });
  }
  return router;
}
