/**
 * Verifying Laurel's webhook calls (docs/api-notes.md "Signatures"), with WebCrypto only, so the same
 * code runs in Node 20+, browsers and edge runtimes. Every call carries two signatures of its raw body:
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 *   (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the base64-decoded part of the
 *   `whsec_` secret; several, space-separated, during a secret rotation's overlap). It dates the
 *   call, so a replayed old call is refused: the default.
 * - `x-laurel-signature` (the name is Laurel's WEBHOOK_SIGNATURE_HEADER): base64 HMAC-SHA256 of the
 *   body keyed with the secret string as shown. It has no timestamp (a captured call replays), and
 *   one value (the current secret's): accepted only when asked for.
 * Signatures are checked with `crypto.subtle.verify`, which compares in constant time.
 */
import type { components, operations } from './generated/openapi.js';

/** The receipt a `transaction` call carries (the interface's receipt shape). */
export type TransactionReceipt = components['schemas']['TransactionReceipt'];

/** The body of a webhook call as openapi.json's `webhooks` section describes it. */
type CallBody<Operation extends 'transactionWebhookCall' | 'testWebhookCall'> =
  operations[Operation]['requestBody']['content']['application/json'];

/** A verified call's body: `{event, idempotency_key, payload}`. Deduplicate on `idempotency_key`. */
export type LaurelWebhookEvent = CallBody<'transactionWebhookCall'> | CallBody<'testWebhookCall'>;

/** Headers as fetch (`Headers`), Node (`IncomingHttpHeaders`) or a plain object have them. */
export type WebhookHeaders =
  { get(name: string): string | null } | Record<string, string | readonly string[] | undefined>;

export interface WebhookVerifyOptions {
  /**
   * The account's webhook secret (`GET /v1/webhook/secret`, `whsec_…`), or several during a
   * rotation: a call verifies when it carries a valid signature of any of them.
   */
  secret: string | readonly string[];
  /**
   * Which signature to check: `standard-webhooks` (default: dated, so replays are refused),
   * `laurel-signature` (the body HMAC header alone) or `either` (the first present and valid).
   */
  scheme?: 'standard-webhooks' | 'laurel-signature' | 'either';
  /** The body HMAC header's name when the Laurel sets WEBHOOK_SIGNATURE_HEADER (default x-laurel-signature). */
  signatureHeader?: string;
  /** How far `webhook-timestamp` may be from now, in seconds (default 300, as Standard Webhooks says). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: () => number;
}

export const DEFAULT_SIGNATURE_HEADER = 'x-laurel-signature';
const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a call did not verify: `reason` names the rule, the message what to do. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason:
      'missing_signature' | 'invalid_timestamp' | 'stale_timestamp' | 'signature_mismatch' | 'invalid_body',
    message: string,
  ) {
    super(message);
  }
}

/** A header's value from any of the header kinds (the first, for a repeated one). */
export function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(
    headers as Record<string, string | readonly string[] | undefined>,
  )) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value[0];
  }
  return undefined;
}

const encoder = new TextEncoder();

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}

function base64Bytes(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** WebCrypto's key type, named without the DOM library (the server's build has Node's types only). */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

function hmacKey(raw: Uint8Array): Promise<HmacKey> {
  return crypto.subtle.importKey('raw', concat(raw), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** Whether `signature` (base64) is the HMAC-SHA256 of `data` under `key`, compared in constant time. */
async function matches(key: HmacKey, signature: string, data: Uint8Array): Promise<boolean> {
  const bytes = base64Bytes(signature);
  return (
    bytes !== null && bytes.length === 32 && crypto.subtle.verify('HMAC', key, concat(bytes), concat(data))
  );
}

function secretsOf(options: WebhookVerifyOptions): string[] {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((secret) => !secret)) {
    throw new TypeError('no webhook secret: pass the whsec_… value of GET /v1/webhook/secret');
  }
  return secrets;
}

async function standardWebhooksValid(
  body: Uint8Array,
  headers: WebhookHeaders,
  secrets: string[],
  options: WebhookVerifyOptions,
): Promise<boolean> {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing_signature',
      'the call has no webhook-id, webhook-timestamp and webhook-signature headers: is it from Laurel? (a proxy may drop them)',
    );
  }
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (Number.isNaN(seconds)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      `webhook-timestamp "${timestamp}" is not Unix seconds`,
    );
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const skew = Math.abs((options.now?.() ?? Date.now()) / 1000 - seconds);
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `webhook-timestamp is ${Math.round(skew)} s from now, more than the ${tolerance} s allowed: a replayed call, or this machine's clock is wrong`,
    );
  }
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const offered = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  for (const secret of secrets) {
    const raw = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
    if (!raw)
      throw new TypeError(
        'the webhook secret is not whsec_ followed by base64: copy it again from GET /v1/webhook/secret',
      );
    const key = await hmacKey(raw);
    for (const signature of offered) if (await matches(key, signature, signed)) return true;
  }
  return false;
}

async function laurelSignatureValid(
  body: Uint8Array,
  signature: string,
  secrets: string[],
): Promise<boolean> {
  for (const secret of secrets) {
    if (await matches(await hmacKey(encoder.encode(secret)), signature, body)) return true;
  }
  return false;
}

/**
 * Verifies a call from its raw body (exactly the bytes received: not re-serialised JSON) and headers,
 * and returns its parsed body. Throws WebhookVerificationError when it does not verify.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  options: WebhookVerifyOptions,
): Promise<LaurelWebhookEvent> {
  const secrets = secretsOf(options);
  const body = bytesOf(rawBody);
  const scheme = options.scheme ?? 'standard-webhooks';
  const signatureHeader = options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER;
  const laurelSignature = headerOf(headers, signatureHeader);
  const useStandard =
    scheme === 'standard-webhooks' ||
    (scheme === 'either' && headerOf(headers, 'webhook-signature') !== undefined);
  let valid: boolean;
  if (useStandard) valid = await standardWebhooksValid(body, headers, secrets, options);
  else if (!laurelSignature) {
    throw new WebhookVerificationError(
      'missing_signature',
      `the call has no ${signatureHeader} header: is it from Laurel, and is that the name its WEBHOOK_SIGNATURE_HEADER sets?`,
    );
  } else valid = await laurelSignatureValid(body, laurelSignature, secrets);
  if (!valid) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      `no ${useStandard ? 'webhook-signature' : signatureHeader} matches the secret${secrets.length > 1 ? 's' : ''}: use the current one of GET /v1/webhook/secret, and pass the raw body exactly as received (not parsed JSON)`,
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the signed body is not JSON');
  }
  const { event: name, idempotency_key } = (event ?? {}) as Record<string, unknown>;
  if (typeof name !== 'string' || typeof idempotency_key !== 'string') {
    throw new WebhookVerificationError(
      'invalid_body',
      'the signed body is not {event, idempotency_key, payload}',
    );
  }
  return event as LaurelWebhookEvent;
}

/**
 * The body that answers a `test` call's challenge: `{challenge: <its x-laurel-signature>}`, to send
 * with status 200 and `content-type: application/json` (only after verifying the call).
 */
export function challengeAnswer(
  headers: WebhookHeaders,
  options: Pick<WebhookVerifyOptions, 'signatureHeader'> = {},
): { challenge: string } {
  const name = options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER;
  const challenge = headerOf(headers, name);
  if (!challenge) {
    throw new WebhookVerificationError(
      'missing_signature',
      `the test call has no ${name} header to answer the challenge with: set signatureHeader to the Laurel's WEBHOOK_SIGNATURE_HEADER`,
    );
  }
  return { challenge };
}

/** Verifies a fetch-style `Request` (reads its body) and returns the parsed event. */
export async function verifyWebhookRequest(
  request: Request,
  options: WebhookVerifyOptions,
): Promise<LaurelWebhookEvent> {
  return verifyWebhook(new Uint8Array(await request.arrayBuffer()), request.headers, options);
}

/** What a handler does with a verified event other than `test` (awaited before the 2xx answer). */
export type WebhookEventHandler = (event: Extract<LaurelWebhookEvent, { event: 'transaction' }>) => unknown;

/**
 * A fetch-style handler (`(Request) => Promise<Response>`: Deno, Bun, Cloudflare Workers, Next.js
 * route handlers, Hono): verifies each call, answers `test` calls' challenge, hands every other event
 * to `onEvent` and answers 204; a call that does not verify gets 401 with the reason.
 */
export function webhookFetchHandler(
  options: WebhookVerifyOptions,
  onEvent: WebhookEventHandler,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const headers = request.headers;
    let event: LaurelWebhookEvent;
    try {
      event = await verifyWebhookRequest(request, options);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      return Response.json({ error: error.message, reason: error.reason }, { status: 401 });
    }
    if (event.event === 'test') return Response.json(challengeAnswer(headers, options));
    await onEvent(event);
    return new Response(null, { status: 204 });
  };
}

/** The parts of an Express (4 or 5) request a handler reads: typed structurally, no express dependency. */
export interface ExpressLikeRequest {
  headers: Record<string, string | readonly string[] | undefined>;
  /** The raw body: a Buffer from `express.raw({type: 'application/json'})`. */
  body?: unknown;
}

export interface ExpressLikeResponse {
  status(code: number): ExpressLikeResponse;
  json(body: unknown): unknown;
  end(): unknown;
}

/**
 * An Express handler: mount it with the raw body parser, so the bytes Laurel signed reach it
 * unchanged (a JSON parser before it re-serialises them and no signature matches):
 *
 *   app.post('/webhooks/laurel', express.raw({ type: 'application/json' }), expressWebhookHandler({ secret }, onEvent));
 *
 * Answers as webhookFetchHandler does; an error of `onEvent` goes to `next` (500: Laurel retries).
 */
export function expressWebhookHandler(
  options: WebhookVerifyOptions,
  onEvent: WebhookEventHandler,
): (
  request: ExpressLikeRequest,
  response: ExpressLikeResponse,
  next?: (error?: unknown) => void,
) => Promise<void> {
  return async (request, response, next) => {
    try {
      const { body } = request;
      if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
        throw new TypeError(
          `the webhook route's body is ${body === undefined ? 'missing' : 'already parsed'}: mount express.raw({ type: 'application/json' }) on it, before any express.json()`,
        );
      }
      let event: LaurelWebhookEvent;
      try {
        event = await verifyWebhook(body, request.headers, options);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        response.status(401).json({ error: error.message, reason: error.reason });
        return;
      }
      if (event.event === 'test') {
        response.status(200).json(challengeAnswer(request.headers, options));
        return;
      }
      await onEvent(event);
      response.status(204).end();
    } catch (error) {
      if (next) next(error);
      else throw error;
    }
  };
}
