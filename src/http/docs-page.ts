import path from 'node:path';
import express, { type Router } from 'express';

// The package's folder, found without loading its entry point (which requires the whole 1 MB UI bundle).
const swaggerUiFolder = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * The API reference: Swagger UI from its npm package (no CDN), reading `/openapi.json`. No
 * validator badge (it would call an outside service).
 */
export function docsPage(openApiUrl: string, assetsPath: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"/><title>Laurel API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<link rel="stylesheet" href="${assetsPath}/swagger-ui.css"/>
<link rel="icon" href="${assetsPath}/favicon-32x32.png"/></head>
<body><div id="swagger-ui"></div>
<script src="${assetsPath}/swagger-ui-bundle.js"></script>
<script>window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(openApiUrl)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, persistAuthorization: true });
});</script></body></html>`;
}

export function docsAssets(): Router {
  return express.static(swaggerUiFolder, {
    immutable: true,
    maxAge: '7d',
    index: false,
  }) as unknown as Router;
}
