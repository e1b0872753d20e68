import path from 'node:path';
import express, { type Router } from 'express';

const assets = path.join(path.dirname(require.resolve('graphql-playground-react/package.json')), 'build');

/** GraphQL Playground, served from the npm package (no CDN), pointed at `endpoint`. */
export function playgroundPage(endpoint: string, assetsPath: string): string {
  const settings = JSON.stringify({
    endpoint,
    settings: { 'request.credentials': 'same-origin', 'schema.polling.enable': false },
    headers: { 'X-API-KEY': 'your API key (POST /key/challenge, then /key/verify)' },
  });
  return `<!doctype html>
<html><head><meta charset="utf-8"/><title>Laurel GraphQL Playground</title>
<meta name="viewport" content="user-scalable=no,initial-scale=1,minimum-scale=1,maximum-scale=1"/>
<link rel="stylesheet" href="${assetsPath}/static/css/middleware.css"/>
<link rel="shortcut icon" href="${assetsPath}/favicon.png"/>
<script src="${assetsPath}/static/js/middleware.js"></script></head>
<body><div id="root"></div>
<script>window.addEventListener('load', function () {
  GraphQLPlayground.init(document.getElementById('root'), ${settings.replace(/</g, '\\u003c')});
});</script></body></html>`;
}

export function playgroundAssets(): Router {
  return express.static(assets, { immutable: true, maxAge: '7d', index: false }) as unknown as Router;
}
