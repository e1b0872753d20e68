import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** Laurel's helmet: no CSP (JSON answers, and the Playground runs an inline script), no framing. */
export const HELMET_OPTIONS: HelmetOptions = { contentSecurityPolicy: false, frameguard: { action: 'deny' } };

/**
 * The headers helmet sets with HELMET_OPTIONS. They do not depend on the request, so helmet's
 * middleware runs once, here, against a response that records them.
 */
export function securityHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined, // X-Powered-By, which Express is told not to send
  };
  helmet(HELMET_OPTIONS)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}
