import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * The headers helmet sets with Laurel's configuration: no CSP (JSON answers, and the Playground
 * runs an inline script), but no page of Laurel's may be framed. Helmet's headers do not depend
 * on the request, so its middleware runs once, here, against a response that records them.
 */
export function securityHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined, // X-Powered-By, which Express is told not to send
  };
  helmet({ contentSecurityPolicy: false, frameguard: { action: 'deny' } })(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    () => undefined,
  );
  return headers;
}
