import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import tls from 'node:tls';

/** The interface's limits on one webhook call. */
export const WEBHOOK_CALL_TIMEOUT_MS = 5000;
export const WEBHOOK_MAX_REDIRECTS = 3;
/** Bytes of a response body read and kept; the rest is discarded. */
export const WEBHOOK_RESPONSE_BODY_LIMIT = 16 * 1024;

/** What one call (all its redirect hops) came to. `error` is set for every failed call. */
export interface WebhookCallResult {
  successful: boolean;
  /** The final response's status code; null when no response arrived. */
  responseCode: number | null;
  contentType: string | null;
  /** The start of the final response's body (at most WEBHOOK_RESPONSE_BODY_LIMIT bytes). */
  responseBody: string | null;
  errorMessage: string | null;
  /** Seconds asked for by a `Retry-After` on a 429 or 503 answer. */
  retryAfterSeconds: number | null;
  durationMs: number;
}

export interface WebhookHttpClientOptions {
  /** Allow loopback, private, link-local, multicast and other non-public destinations. */
  allowPrivateNetworks: boolean;
  /** Addresses or CIDR ranges reachable even when private networks are not allowed. */
  allowedAddresses?: string[];
  userAgent: string;
  timeoutMs?: number;
  /** CA certificates (PEM) trusted besides Node's own store and NODE_EXTRA_CA_CERTS. */
  extraCaCertificates?: string[];
}

/**
 * Node's trust store plus `extra`. Giving a TLS `ca` replaces the default store, which includes
 * the NODE_EXTRA_CA_CERTS file, so both are stated again.
 */
function trustedCertificates(extra: string[]): string[] {
  const fromEnvironment = process.env.NODE_EXTRA_CA_CERTS;
  return [
    ...tls.rootCertificates,
    ...(fromEnvironment ? [readFileSync(fromEnvironment, 'utf8')] : []),
    ...extra,
  ];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

class CallFailure extends Error {
  constructor(
    message: string,
    readonly response?: { status: number; contentType: string | null; body: string },
  ) {
    super(message);
  }
}

/** Seconds of a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function describeNetworkError(error: Error & { code?: string }): string {
  if (/is not allowed\. Because/.test(error.message)) return `refused address: ${error.message}`;
  if (error.code && CERTIFICATE_ERROR.test(error.code)) {
    return (
      `certificate error: ${error.code}: ${error.message} (the receiver needs a valid certificate from a CA ` +
      'Laurel trusts; for a receiver on this machine, `npm run dev:cert` makes one signed by the development CA)'
    );
  }
  if (error.code === 'ECONNREFUSED') return `connection refused: ${error.message}`;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

/**
 * The start of a response body, at most WEBHOOK_RESPONSE_BODY_LIMIT bytes; the rest is not read
 * (the connection is dropped instead). Plain stream events: cheaper than an async iterator.
 */
function readBounded(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      done = true;
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    response.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = WEBHOOK_RESPONSE_BODY_LIMIT - size;
      chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= WEBHOOK_RESPONSE_BODY_LIMIT) {
        finish();
        response.destroy(); // the rest is not wanted: drop the connection rather than read it
      }
    });
    response.once('end', () => done || finish());
    response.once('error', (error) => done || ((done = true), reject(error)));
    response.once(
      'close',
      () => done || ((done = true), reject(new Error('the connection closed mid-body'))),
    );
  });
}

/**
 * POSTs webhook calls the way the interface's delivery rules say: HTTPS only, with a certificate
 * Node trusts (its own roots plus NODE_EXTRA_CA_CERTS); at most 3 redirects, each hop re-checked
 * like the first (same method and body); one deadline for the whole call; a bounded response body.
 * The SSRF rule is enforced by request-filtering-agent when a connection is made, on the address
 * DNS actually returned, so neither a DNS change nor a redirect reaches a non-public address.
 */
export class WebhookHttpClient {
  private constructor(
    private readonly agent: https.Agent,
    private readonly userAgent: string,
    private readonly timeoutMs: number,
  ) {}

  static async create(options: WebhookHttpClientOptions): Promise<WebhookHttpClient> {
    // request-filtering-agent is an ES module: loaded with import() from this CommonJS build.
    const { RequestFilteringHttpsAgent } = await import('request-filtering-agent');
    const agent = new RequestFilteringHttpsAgent({
      keepAlive: true,
      ...(options.extraCaCertificates?.length && { ca: trustedCertificates(options.extraCaCertificates) }),
      allowPrivateIPAddress: options.allowPrivateNetworks,
      allowIPAddressList: options.allowedAddresses ?? [],
    });
    return new WebhookHttpClient(agent, options.userAgent, options.timeoutMs ?? WEBHOOK_CALL_TIMEOUT_MS);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<WebhookCallResult> {
    const started = Date.now();
    const finish = (
      fields: Omit<WebhookCallResult, 'durationMs' | 'retryAfterSeconds'>,
      retryAfterSeconds: number | null = null,
    ) => ({ ...fields, retryAfterSeconds, durationMs: Date.now() - started });
    // One deadline for the whole call (every hop and the body): when it passes, the request in
    // flight is destroyed, which fails whatever step is waiting on it.
    let expired: CallFailure | undefined;
    let inFlight: ClientRequest | undefined;
    const timer = setTimeout(() => {
      expired = new CallFailure(`timeout: no answer within ${this.timeoutMs} ms`);
      inFlight?.destroy(expired);
    }, this.timeoutMs);
    const requestHeaders = {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': this.userAgent,
    };
    try {
      let target = url;
      for (let hop = 0; ; hop++) {
        if (expired) throw expired;
        const response = await this.hop(target, body, requestHeaders, (request) => (inFlight = request));
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
          response.resume();
          if (hop === WEBHOOK_MAX_REDIRECTS) {
            throw new CallFailure(`too many redirects: more than ${WEBHOOK_MAX_REDIRECTS}`);
          }
          target = new URL(location, target).toString();
          continue;
        }
        const status = response.statusCode ?? 0;
        const contentType = response.headers['content-type'] ?? null;
        const responseBody = await readBounded(response);
        const successful = status >= 200 && status < 300;
        const retryAfter = headerValue(response.headers['retry-after']);
        return finish(
          {
            successful,
            responseCode: status,
            contentType,
            responseBody,
            errorMessage: successful ? null : `receiver answered HTTP ${status}`,
          },
          status === 429 || status === 503 ? parseRetryAfter(retryAfter) : null,
        );
      }
    } catch (caught) {
      const error = expired ?? (caught as Error);
      return finish({
        successful: false,
        responseCode: null,
        contentType: null,
        responseBody: null,
        errorMessage: error instanceof CallFailure ? error.message : describeNetworkError(error),
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** One request of a call; `started` receives it so that the call's deadline can destroy it. */
  private hop(
    target: string,
    body: string,
    headers: Record<string, string>,
    started: (request: ClientRequest) => void,
  ): Promise<IncomingMessage> {
    let parsed: URL;
    try {
      parsed = new URL(target);
    } catch {
      return Promise.reject(new CallFailure(`invalid url: ${target}`));
    }
    if (parsed.protocol !== 'https:') {
      return Promise.reject(new CallFailure(`only HTTPS urls allowed: ${target}`));
    }
    return new Promise((resolve, reject) => {
      const request = https.request(parsed, { method: 'POST', agent: this.agent, headers }, resolve);
      started(request);
      request.once('error', reject);
      request.end(body);
    });
  }

  destroy(): void {
    this.agent.destroy();
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
