import {
  OutboundCallError,
  retryAfterSeconds,
  type OutboundFailureKind,
  type OutboundHttpsClient,
} from '../../outbound-https';

/** Redirects a metadata fetch follows, each hop checked like the first (as webhook calls). */
const METADATA_MAX_REDIRECTS = 3;
/** Nesting a document may have: NFT metadata is shallow; PostgreSQL and JSON.parse recurse. */
const METADATA_MAX_DEPTH = 32;

/** Why a fetch failed, as a bounded set (the metrics' `outcome`). */
export type MetadataFailureKind =
  OutboundFailureKind | 'unsupported_uri' | 'http_status' | 'too_large' | 'not_json' | 'not_object';

export type MetadataFetch =
  | { ok: true; document: Record<string, unknown> }
  | {
      ok: false;
      kind: MetadataFailureKind;
      /** A sentence for the log and the stored row. */
      reason: string;
      /** Whether the same fetch may succeed soon (a timeout, a 5xx): retried, else left to the next refresh. */
      retryable: boolean;
      /** Seconds a 429 or 503 answer asked to wait (Retry-After). */
      retryAfterSeconds: number | null;
    };

export interface MetadataFetchLimits {
  /** `ipfs://<path>` is read from `<ipfsGateway><path>` (ends with `/`). */
  ipfsGateway: string;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * The HTTPS URL a metadata URI is read from: an `https://` URI itself, an `ipfs://<cid>/<path>`
 * one through the gateway (an `ipfs://ipfs/<cid>` written by mistake too); null for any other.
 */
export function metadataUrlOf(uri: string, ipfsGateway: string): string | null {
  if (/^https:\/\//i.test(uri)) return uri;
  const ipfs = /^ipfs:\/\/(?:ipfs\/)?(.+)$/i.exec(uri);
  return ipfs ? `${ipfsGateway}${ipfs[1]}` : null;
}

/** Whether a URI's content is addressed by its hash (IPFS): what it names never changes. */
export function isImmutableUri(uri: string): boolean {
  return /^ipfs:\/\//i.test(uri);
}

/** Failures of the call itself that may pass: the host was slow, unreachable or reset. */
const RETRYABLE_CALL_FAILURES: ReadonlySet<MetadataFailureKind> = new Set(['timeout', 'network']);

function failure(
  kind: MetadataFailureKind,
  reason: string,
  retryable = false,
  retryAfter: number | null = null,
): MetadataFetch {
  return { ok: false, kind, reason, retryable, retryAfterSeconds: retryAfter };
}

function depthOf(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit === 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, limit - 1));
  return deepest + 1;
}

/** The document a response body holds, or why it is not one Laurel keeps. */
export function parseMetadataDocument(body: Buffer, maxBytes: number): MetadataFetch {
  if (body.length > maxBytes) return failure('too_large', `the document is larger than ${maxBytes} bytes`);
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    return failure('not_json', `the document is not JSON: ${(error as Error).message}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    const what = Array.isArray(document) ? 'an array' : document === null ? 'null' : typeof document;
    return failure('not_object', `the document is ${what}, not a JSON object`);
  }
  if (depthOf(document, METADATA_MAX_DEPTH) > METADATA_MAX_DEPTH) {
    return failure('not_json', `the document is nested more than ${METADATA_MAX_DEPTH} levels deep`);
  }
  // PostgreSQL's jsonb holds neither the NUL character nor an unpaired surrogate: JSON.stringify
  // writes both as \u escapes (and a backslash of the text itself doubled, hence the lookbehind).
  const unstorable = /(?<!\\)(?:\\\\)*\\u(0000|d[89a-f][0-9a-f]{2})/.exec(JSON.stringify(document));
  if (unstorable) {
    const what =
      unstorable[1] === '0000' ? 'a NUL character (\\u0000)' : `an unpaired surrogate (\\u${unstorable[1]})`;
    return failure('not_json', `the document holds ${what}, which cannot be stored`);
  }
  return { ok: true, document: document as Record<string, unknown> };
}

/**
 * Whether a host's answer of `status` may pass, so that the fetch is retried: 408, 429 and 5xx,
 * nothing else a host invents (a 999 is its own, not a server error).
 */
export function mayPass(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Fetches badge metadata documents through Laurel's outbound HTTPS client (the SSRF rule on every
 * hop, trusted certificates only): a GET within a deadline, a body of at most `maxBytes`, a 2xx
 * answer holding a JSON object. Never throws for what a host does.
 */
export class BadgeMetadataFetcher {
  constructor(
    private readonly client: OutboundHttpsClient,
    private readonly limits: MetadataFetchLimits,
  ) {}

  async fetch(uri: string): Promise<MetadataFetch> {
    const url = metadataUrlOf(uri, this.limits.ipfsGateway);
    if (!url) return failure('unsupported_uri', 'only https:// and ipfs:// metadata URIs are fetched');
    try {
      const response = await this.client.request(url, {
        method: 'GET',
        // No `Accept: application/json`: an IPFS gateway takes it as a request for the DAG-JSON
        // response format (IPIP-328), which a JSON file stored as UnixFS is not.
        headers: { accept: '*/*' },
        timeoutMs: this.limits.timeoutMs,
        maxRedirects: METADATA_MAX_REDIRECTS,
        // One byte more than allowed tells a document that is too large from one that fits.
        bodyLimit: this.limits.maxBytes + 1,
      });
      const { status } = response;
      if (status < 200 || status >= 300) {
        return failure(
          'http_status',
          `the host answered HTTP ${status}`,
          mayPass(status),
          retryAfterSeconds(response),
        );
      }
      return parseMetadataDocument(response.body, this.limits.maxBytes);
    } catch (error) {
      if (!(error instanceof OutboundCallError)) throw error;
      return failure(error.kind, error.message, RETRYABLE_CALL_FAILURES.has(error.kind));
    }
  }
}
