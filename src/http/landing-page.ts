import type { RequestHandler } from 'express';
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

/**
 * `GET /`: the service's name and version and where to go from here: HTML for a browser, JSON for
 * `Accept: application/json` (and any other client that does not ask for HTML).
 */
export function landingPage(links: Link[]): RequestHandler {
  const json = { name: 'Laurel', version: LAUREL_VERSION, links };
  const html = `<!doctype html>
<html><head><meta charset="utf-8"/><title>Laurel ${escapeHtml(LAUREL_VERSION)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"/><link rel="icon" href="data:,"/>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>Laurel <small>${escapeHtml(LAUREL_VERSION)}</small></h1>
<p>A rewards backend for applications that record what their users do on an EVM blockchain.</p>
<ul>${links.map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.title)}</a> <code>${escapeHtml(link.href)}</code></li>`).join('')}</ul>
</body></html>`;
  return (req, res) => {
    if (req.accepts(['application/json', 'text/html']) === 'text/html') res.type('html').send(html);
    else res.json(json);
  };
}
