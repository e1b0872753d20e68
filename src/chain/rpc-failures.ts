/**
 * What a provider's failure means for routing: the words of hosted providers (Alchemy, Infura,
 * QuickNode, Ankr, public nodes...) and nodes (geth, reth, erigon, nethermind, anvil) sorted into
 * "ask another provider" and "this is the answer". Reasons are built from status codes and error
 * codes only, never from URLs or the provider's own text (URLs and some messages carry API keys).
 */

/** The JSON-RPC error object of a reply. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type FailureKind =
  /** HTTP 429, JSON-RPC -32005 and rate-limit wordings: wait (Retry-After) or use another provider. */
  | 'throttled'
  /** Refused, reset, timed out, 5xx, unreadable answer, or a node-side transient error. */
  | 'unavailable'
  /** Its head lags behind the other providers'. */
  | 'lagging';

/** A provider could not serve a request: another provider may. */
export class ProviderFailure extends Error {
  override name = 'ProviderFailure';
  /** It answered the other calls of the batch. */
  answeredOthers = false;

  constructor(
    readonly kind: FailureKind,
    /** What the provider did, URL-free, to follow its name: `refused the connection`, `answered HTTP 503`. */
    readonly reason: string,
    /** The request may have reached the node (timeout, reset, 5xx) as opposed to a refused connection. */
    readonly mayHaveArrived: boolean,
    /** How long the provider asked to be left alone (Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(reason);
  }
}

/** A JSON-RPC error that is the answer to the call (a revert, a rejected transaction, bad params). */
export class RpcAnswerError extends Error {
  override name = 'RpcAnswerError';

  constructor(
    readonly method: string,
    readonly error: RpcErrorObject,
  ) {
    super(`${method}: ${error.message} (code ${error.code})`);
  }
}

/** The longest Retry-After honoured; a provider asking for more is treated as asking for this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  const ms = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.round(ms)));
}

export const TIMEOUT_REASON = 'did not answer in time';

/** Socket errors meaning the request never reached the node. */
const NOT_SENT = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];

/** The failure of a fetch that threw: refused, reset, timed out, closed, or a body that is not JSON. */
export function transportFailure(error: unknown): ProviderFailure {
  const { name, code, cause } = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    cause?: { code?: unknown };
  };
  if (name === 'TimeoutError') return new ProviderFailure('unavailable', TIMEOUT_REASON, true);
  if (name === 'SyntaxError')
    return new ProviderFailure('unavailable', 'answered something other than JSON', true);
  const socketCode = String(cause?.code ?? code ?? '');
  if (socketCode === 'ECONNREFUSED')
    return new ProviderFailure('unavailable', 'refused the connection', false);
  if (NOT_SENT.includes(socketCode)) return new ProviderFailure('unavailable', 'cannot be reached', false);
  if (socketCode === 'ECONNRESET' || socketCode === 'UND_ERR_SOCKET' || socketCode === 'EPIPE') {
    return new ProviderFailure('unavailable', 'reset the connection', true);
  }
  return new ProviderFailure('unavailable', `cannot be reached${socketCode ? ` (${socketCode})` : ''}`, true);
}

/** The failure of an HTTP answer other than 200. */
export function httpFailure(status: number, retryAfter: string | null): ProviderFailure {
  if (status === 429) {
    return new ProviderFailure('throttled', 'answered HTTP 429', false, retryAfterMs(retryAfter));
  }
  // 503 with Retry-After is a provider shedding load: the same treatment as a 429.
  const wait = retryAfterMs(retryAfter);
  return new ProviderFailure('unavailable', `answered HTTP ${status}`, status >= 500, wait);
}

/** eth_getLogs refusals for too wide a range or too many results (see log-ranges.ts). */
export const LOG_LIMIT_WORDS =
  /block range|blocks? distance|range (is )?too (large|wide)|max(imum)? (block )?range|range limit|too many blocks|limited to (a )?[\d,.]+|up to a [\d,.]+ block|limit the query to|requested (too many )?blocks|range allowed|range should work|with this block range|returned more than \d+ results|exceeds max results|response size|response too large|logs matched by query exceeds|too many (logs|results)|more than [\d,]+ (logs|results)|query timeout exceeded/i;

const REVERT = /revert/i;
const THROTTLE_WORDS =
  /rate.?limit|too many requests|request limit|limit exceeded|exceeded .*(capacity|quota|limit|compute units|throughput)|capacity exceeded|throttl|over (your|the) (rate|quota)/i;
const TRANSIENT_WORDS =
  /header not found|unknown block|missing trie node|not (yet )?synced|syncing|upstream|timeout|timed out|temporarily unavailable|service unavailable|internal server error|bad gateway|gateway time-?out|try again|no (backend|healthy)|overloaded/i;

/**
 * How to treat a JSON-RPC error a provider answered to `method`:
 * - `log-limit`: eth_getLogs over too wide a range or with too many results: ask for less;
 * - `throttled` / `unavailable`: this provider cannot answer now: ask another;
 * - `answer`: the node's answer (a revert, a rejected transaction, invalid params): the same anywhere.
 */
export function classifyRpcError(
  method: string,
  error: RpcErrorObject,
): FailureKind | 'log-limit' | 'answer' {
  const message = typeof error.message === 'string' ? error.message : '';
  if (REVERT.test(message) || error.code === 3) return 'answer';
  if (method === 'eth_getLogs' && LOG_LIMIT_WORDS.test(message)) return 'log-limit';
  if (error.code === 429 || error.code === -32005 || THROTTLE_WORDS.test(message)) return 'throttled';
  if (TRANSIENT_WORDS.test(message)) return 'unavailable';
  return 'answer';
}

/** The failure of a JSON-RPC error reply another provider may not give; null when it is the answer. */
export function providerFailureOf(method: string, error: RpcErrorObject): ProviderFailure | null {
  const kind = classifyRpcError(method, error);
  if (kind !== 'throttled' && kind !== 'unavailable') return null;
  return new ProviderFailure(kind, `answered JSON-RPC error ${error.code}`, true);
}

/** A node saying it already has this very transaction: the broadcast succeeded. */
export function isAlreadyKnown(error: RpcErrorObject): boolean {
  return /already known|known transaction|already imported|already exists|already in (the )?(mem)?pool|alreadyknown/i.test(
    typeof error.message === 'string' ? error.message : '',
  );
}
