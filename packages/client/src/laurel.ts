/**
 * The client's core: one Laurel service, its typed REST API and the caller's API key. Every REST
 * operation's path, parameters, body and answers are typed from openapi.json (openapi-typescript,
 * ./generated/openapi.ts) and called through openapi-fetch: `laurel.api.POST('/v1/reward/XP', {body})`.
 * `laurel.call(...)` returns the success body or throws a LaurelError carrying the documented body.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { LaurelError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type LaurelPaths = paths;
export type LaurelApi = Client<paths>;

export interface LaurelOptions {
  /** Where Laurel answers, e.g. `http://127.0.0.1:4000` ({auth_url}; the API is under its `/v1`). */
  url: string;
  /** An API key (X-API-KEY), or none until `signIn` gets one. */
  apiKey?: string;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Send an `Idempotency-Key` (a new UUID per call, reused by its retries) with every POST, PUT,
   * PATCH and DELETE under /v1 that does not carry one (default true): a retry after a lost answer
   * gets the first answer, never a second nonce or a second broadcast.
   */
  idempotencyKeys?: boolean;
  /**
   * Waiting out `Retry-After` (429, 409 `idempotency_key_in_progress`, a 503 that did nothing) and
   * sending the same request again: at most `attempts` requests (default 4), no single wait longer
   * than `maxWaitMs` (default 30 000). `false` turns it off. See README.md#recovery.
   */
  retry?: RetryOptions | false;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A new random key: a UUID (crypto.randomUUID exists in Node 20+ and in every current browser). */
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();

export class Laurel {
  /** {auth_url}, without a trailing slash. */
  readonly url: string;
  /** The typed REST API (openapi-fetch): answers come back as `{data, error, response}`. */
  readonly api: LaurelApi;
  /** The key sent in X-API-KEY; `signIn` sets it. */
  apiKey: string | undefined;
  /** `METHOD path` of each answer, for the errors that name it. */
  private readonly requests = new WeakMap<Response, string>();
  /** Why the transport stopped retrying an answer that asked to be retried, for its error. */
  private readonly gaveUp = new WeakMap<Response, string>();

  constructor(options: LaurelOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    // The middleware (headers, Idempotency-Key) runs before this fetch: every retry sends the same.
    const fetch =
      options.retry === false
        ? baseFetch
        : retryingFetch(baseFetch, options.retry ?? {}, (response, why) => this.gaveUp.set(response, why));
    this.api = createClient<paths>({ baseUrl: this.url, fetch });
    this.api.use(this.headers(options.idempotencyKeys ?? true));
  }

  /** X-API-KEY on every request, and an Idempotency-Key on writes under /v1 (of `url`'s path). */
  private headers(idempotencyKeys: boolean): Middleware {
    // Laurel served under a path of a reverse proxy (`https://host/laurel`): its /v1 is there.
    const api = `${new URL(this.url).pathname.replace(/\/+$/, '')}/v1/`;
    return {
      onRequest: ({ request }) => {
        if (this.apiKey && !request.headers.has('x-api-key')) request.headers.set('x-api-key', this.apiKey);
        if (
          idempotencyKeys &&
          WRITES.has(request.method) &&
          new URL(request.url).pathname.startsWith(api) &&
          !request.headers.has('idempotency-key')
        ) {
          request.headers.set('idempotency-key', newIdempotencyKey());
        }
        return request;
      },
      onResponse: ({ request, response }) => {
        this.requests.set(response, `${request.method} ${new URL(request.url).pathname}`);
        return response;
      },
    };
  }

  /**
   * The success body of an openapi-fetch call, or a LaurelError with the answer's status and
   * documented body (status 0 when Laurel could not be reached).
   *
   *   const { unsignedTransaction } = await laurel.call(laurel.api.POST('/v1/reward/XP', { body }));
   */
  async call<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
    let answer: { data?: Data; error?: unknown; response: Response };
    try {
      answer = await pending;
    } catch (cause) {
      throw new LaurelError(0, null, this.url, `no Laurel answers at ${this.url}: ${String(cause)}`);
    }
    const { response } = answer;
    const request = this.requests.get(response) ?? this.url;
    if (answer.error !== undefined || !response.ok) {
      const error = new LaurelError(response.status, answer.error, request);
      const why = this.gaveUp.get(response);
      throw why
        ? new LaurelError(response.status, answer.error, request, `${error.message} (${why})`)
        : error;
    }
    return answer.data as Data;
  }
}
