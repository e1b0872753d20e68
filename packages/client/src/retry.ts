/**
 * The transport's retries: an answer that says "nothing was done, ask again after `Retry-After`" is
 * waited out and the same request sent again, within the caller's bounds. Which answers are such
 * (docs/api-notes.md):
 * - 429 (a spent request budget) with `Retry-After`;
 * - 409 `idempotency_key_in_progress` with `Retry-After` (the first request under the key still runs:
 *   the retry gets its answer, never a second run);
 * - 503 with `Retry-After` that did nothing: `Laurel is shutting down` (or starting), `Database
 *   unavailable`. Never a 503 that carries a `transactionHash` (the node may have taken the
 *   transaction: execute.ts follows it instead).
 * A retried write carries the same `Idempotency-Key` (the middleware set it on the request, which each
 * attempt clones), so it can never do the work twice.
 */

import { codeOf, messageOf } from './errors.js';

export interface RetryOptions {
  /** Requests sent at most, the first included (default 4; 1 turns retries off). */
  attempts?: number;
  /** The longest `Retry-After` waited out, in ms (default 30 000): a longer one is answered at once. */
  maxWaitMs?: number;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = { attempts: 4, maxWaitMs: 30_000 };

/** Bodies that name an answer that did nothing: Shape B's `error.code`, or Shape A's message. */
const NOTHING_DONE_CODES = new Set(['shutting_down', 'database_unavailable', 'idempotency_key_in_progress']);
const NOTHING_DONE_MESSAGES = [
  /^Laurel is shutting down/,
  /^Laurel is starting/,
  /^Database unavailable/,
  /^A request with this Idempotency-Key is still running/,
];

/** `Retry-After` in ms: delta-seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Why this answer may be asked again after its `Retry-After`, or undefined when it may not. */
async function retryable(response: Response): Promise<string | undefined> {
  if (!response.headers.has('retry-after')) return undefined;
  if (response.status === 429) return 'rate limited';
  if (response.status !== 409 && response.status !== 503) return undefined;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || 'transactionHash' in body) return undefined;
  const code = codeOf(body);
  if (code && NOTHING_DONE_CODES.has(code)) return code;
  const message = messageOf(body) ?? '';
  return NOTHING_DONE_MESSAGES.some((pattern) => pattern.test(message)) ? `"${message}"` : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const done = () => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * `fetch` with the retries above. When it stops retrying an answer that asked to be retried, the
 * answer is returned with `note` set to why (the attempts or the longest wait spent), for the error.
 */
export function retryingFetch(
  fetch: (request: Request) => Promise<Response>,
  options: RetryOptions,
  note: (response: Response, why: string) => void,
): (request: Request) => Promise<Response> {
  const { attempts, maxWaitMs } = { ...RETRY_DEFAULTS, ...options };
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      // Each attempt sends a copy: a body is read once, and the headers (Idempotency-Key) stay.
      const response = await fetch(attempt < attempts ? request.clone() : request);
      const why = await retryable(response);
      if (!why) return response;
      const waitMs = retryAfterMs(response.headers.get('retry-after')) ?? 0;
      if (attempt >= attempts) {
        note(
          response,
          `still ${why} after ${attempts} attempt${attempts === 1 ? '' : 's'} (retry.attempts); ` +
            `send it again later, or allow more attempts`,
        );
        return response;
      }
      if (waitMs > maxWaitMs) {
        note(
          response,
          `Laurel asked to wait ${Math.ceil(waitMs / 1000)} s (Retry-After), longer than the longest ` +
            `wait of ${maxWaitMs} ms (retry.maxWaitMs); send it again after that, or raise the bound`,
        );
        return response;
      }
      await response.body?.cancel();
      await sleep(waitMs, request.signal);
    }
  };
}
