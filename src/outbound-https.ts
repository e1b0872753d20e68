/**
 * Laurel's calls to hosts that users name (webhook receivers, badge metadata): HTTPS only, with a
 * certificate Node trusts, a bounded number of redirects each checked like the first hop, one
 * deadline for the whole call, a bounded response body, and no destination outside the public
 * internet. The SSRF rule is enforced by request-filtering-agent when a connection is made, on
 * the address DNS actually returned, so neither a DNS change nor a redirect reaches a non-public
 * address.
 */
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { failedOnReusedConnection } from './reused-connections';

export interface OutboundHttpsOptions {
  /** Allow loopback, private, link-local, multicast and other non-public destinations. */
  allowPrivateNetworks: boolean;
  /** Addresses or CIDR ranges reachable even when private networks are not allowed. */
  allowedAddresses?: string[];
  userAgent: string;
  /** CA certificates (PEM) trusted besides Node's own store and NODE_EXTRA_CA_CERTS. */
  extraCaCertificates?: string[];
  /** A kept-alive connection idle this long is closed (default DEFAULT_OUTBOUND_AGENT.idleSocketMs). */
  idleSocketMs?: number;
  /** Connections open at most, over every host (default DEFAULT_OUTBOUND_AGENT.maxSockets). */
  maxSockets?: number;
}

/**
 * The connection bounds of a client (OUTBOUND_IDLE_SOCKET_MS, OUTBOUND_MAX_SOCKETS): hosts are
 * named by users, so without them every host ever called would keep a connection for good.
 */
export const DEFAULT_OUTBOUND_AGENT = { idleSocketMs: 15_000, maxSockets: 256 } as const;

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** One deadline for every hop and the body. */
  timeoutMs: number;
  maxRedirects: number;
  /** Bytes of the final response's body read at most; the rest is not read (the connection is dropped). */
  bodyLimit: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The start of the final response's body: at most `bodyLimit` bytes. */
  body: Buffer;
}

/** Why a call failed, as a bounded set (metrics) and as a sentence (logs, stored attempts). */
export type OutboundFailureKind =
  | 'invalid_url'
  | 'not_https'
  | 'refused_address'
  | 'certificate'
  | 'timeout'
  | 'too_many_redirects'
  | 'network';

export class OutboundCallError extends Error {
  override name = 'OutboundCallError';
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
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

/** The seconds a 429 or 503 answer asks the caller to wait (its `Retry-After`); null otherwise. */
export function retryAfterSeconds(response: OutboundResponse): number | null {
  if (response.status !== 429 && response.status !== 503) return null;
  const header = response.headers['retry-after'];
  return parseRetryAfter(Array.isArray(header) ? header[0] : header);
}

/**
 * A TLS context trusting Node's trust store plus `extra`, made once for every connection: a `ca`
 * option would have each connection parse the whole store again (some 40 ms of CPU, which callers
 * choosing receivers could spend at will). Giving a `ca` replaces the default store, which
 * includes the NODE_EXTRA_CA_CERTS file, so both are stated again.
 */
function trustingContext(extra: string[]): tls.SecureContext {
  const fromEnvironment = process.env.NODE_EXTRA_CA_CERTS;
  return tls.createSecureContext({
    ca: [
      ...tls.rootCertificates,
      ...(fromEnvironment ? [readFileSync(fromEnvironment, 'utf8')] : []),
      ...extra,
    ],
  });
}

/**
 * ::/96, the IPv4-compatible IPv6 addresses (deprecated by RFC 4291): each carries an IPv4 address,
 * 127.0.0.1 among them (::7f00:1), yet ipaddr.js, under request-filtering-agent, calls them unicast.
 */
const IPV4_COMPATIBLE = new net.BlockList();
IPV4_COMPATIBLE.addSubnet('::', 96, 'ipv6');

/** The refusal of an IPv4-compatible address, worded as request-filtering-agent's (refused_address). */
function ipv4CompatibleRefusal(address: string): Error | null {
  return net.isIPv6(address) && IPV4_COMPATIBLE.check(address, 'ipv6')
    ? new Error(`DNS lookup ${address} is not allowed. Because, It is an IPv4-compatible IPv6 address.`)
    : null;
}

type Lookup = typeof dns.lookup;
type LookupAddress = string | dns.LookupAddress[];
type LookupCallback = (error: NodeJS.ErrnoException | null, address: LookupAddress, family?: number) => void;

/**
 * Has `agent` refuse IPv4-compatible destinations, whether the URL names one or DNS returns one,
 * ahead of request-filtering-agent's own rule (which then sees the other addresses).
 */
function refuseIpv4Compatible(agent: https.Agent): void {
  const filtered = agent.createConnection.bind(agent);
  agent.createConnection = (connection, callback) => {
    const refusal = connection.host ? ipv4CompatibleRefusal(connection.host) : null;
    if (refusal) {
      const socket = new net.Socket();
      if (callback) callback(refusal, socket);
      else socket.destroy(refusal);
      return socket;
    }
    const lookup = (connection.lookup as Lookup | undefined) ?? dns.lookup;
    const refusingLookup = (hostname: string, options: dns.LookupOptions, done: LookupCallback) =>
      lookup(
        hostname,
        options,
        (error: NodeJS.ErrnoException | null, address: LookupAddress, family?: number) => {
          const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
          done((error ? null : addresses.map(ipv4CompatibleRefusal).find(Boolean)) ?? error, address, family);
        },
      );
    return filtered({ ...connection, lookup: refusingLookup as unknown as Lookup }, callback);
  };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

function describeNetworkError(error: Error & { code?: string }): OutboundCallError {
  if (error instanceof OutboundCallError) return error;
  if (/is not allowed\. Because/.test(error.message)) {
    return new OutboundCallError('refused_address', `refused address: ${error.message}`);
  }
  if (error.code && CERTIFICATE_ERROR.test(error.code)) {
    return new OutboundCallError(
      'certificate',
      `certificate error: ${error.code}: ${error.message} (the host needs a valid certificate from a CA ` +
        'Laurel trusts; for a host on this machine, `npm run dev:cert` makes one signed by the development CA)',
    );
  }
  if (error.code === 'ECONNREFUSED') {
    return new OutboundCallError('network', `connection refused: ${error.message}`);
  }
  return new OutboundCallError('network', error.code ? `${error.code}: ${error.message}` : error.message);
}

/**
 * The start of a response body, at most `limit` bytes; the rest is not read (the connection is
 * dropped instead). Plain stream events: cheaper than an async iterator.
 */
function readBounded(response: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      done = true;
      resolve(Buffer.concat(chunks));
    };
    response.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = limit - size;
      chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= limit) {
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
 * When requests wait because the agent's sockets are at their bound, Node's agent lets them wait
 * for one to close, while sockets of other hosts may sit idle (kept alive): the oldest idle one is
 * closed instead, and its room goes to a waiting request at once.
 */
function makeRoom(agent: https.Agent): void {
  const waiting = Object.values(agent.requests).some((queue) => queue?.length);
  if (!waiting) return;
  Object.values(agent.freeSockets)
    .find((sockets) => sockets?.length)?.[0]
    ?.destroy();
}

export class OutboundHttpsClient {
  private constructor(
    private readonly agent: https.Agent,
    private readonly userAgent: string,
  ) {}

  static async create(options: OutboundHttpsOptions): Promise<OutboundHttpsClient> {
    // request-filtering-agent is an ES module: loaded with import() from this CommonJS build.
    const { RequestFilteringHttpsAgent } = await import('request-filtering-agent');
    const agent = new RequestFilteringHttpsAgent({
      keepAlive: true,
      // Node's agent closes a kept-alive socket idle this long (a call in flight has its own deadline).
      timeout: options.idleSocketMs ?? DEFAULT_OUTBOUND_AGENT.idleSocketMs,
      maxTotalSockets: options.maxSockets ?? DEFAULT_OUTBOUND_AGENT.maxSockets,
      ...(options.extraCaCertificates?.length && {
        secureContext: trustingContext(options.extraCaCertificates),
      }),
      allowPrivateIPAddress: options.allowPrivateNetworks,
      allowIPAddressList: options.allowedAddresses ?? [],
    });
    if (!options.allowPrivateNetworks) refuseIpv4Compatible(agent);
    // After Node's own listener, which hands a freed socket to a request of its host, if any.
    agent.on('free', () => makeRoom(agent));
    return new OutboundHttpsClient(agent, options.userAgent);
  }

  /**
   * Makes the call, following redirects (each hop with the same method and body); rejects with an
   * OutboundCallError when no final response arrived whole (within the deadline).
   */
  async request(url: string, call: OutboundRequest): Promise<OutboundResponse> {
    // When the deadline passes, the request in flight is destroyed, which fails whatever step is
    // waiting on it.
    let expired: OutboundCallError | undefined;
    let inFlight: ClientRequest | undefined;
    const timer = setTimeout(() => {
      expired = new OutboundCallError('timeout', `timeout: no answer within ${call.timeoutMs} ms`);
      inFlight?.destroy(expired);
    }, call.timeoutMs);
    const headers = {
      ...call.headers,
      ...(call.body !== undefined && { 'content-length': String(Buffer.byteLength(call.body)) }),
      'user-agent': this.userAgent,
    };
    try {
      let target = url;
      for (let hop = 0; ; hop++) {
        if (expired) throw expired;
        const response = await this.hop(target, call, headers, (request) => (inFlight = request));
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
          response.resume();
          if (hop === call.maxRedirects) {
            throw new OutboundCallError(
              'too_many_redirects',
              `too many redirects: more than ${call.maxRedirects}`,
            );
          }
          target = new URL(location, target).toString();
          continue;
        }
        const body = await readBounded(response, call.bodyLimit);
        return { status: response.statusCode ?? 0, headers: response.headers, body };
      }
    } catch (caught) {
      throw expired ?? describeNetworkError(caught as Error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One request of a call; `started` receives it so that the call's deadline can destroy it. */
  private hop(
    target: string,
    call: OutboundRequest,
    headers: Record<string, string>,
    started: (request: ClientRequest) => void,
  ): Promise<IncomingMessage> {
    let parsed: URL;
    try {
      parsed = new URL(target);
    } catch {
      return Promise.reject(new OutboundCallError('invalid_url', `invalid url: ${target}`));
    }
    if (parsed.protocol !== 'https:') {
      return Promise.reject(new OutboundCallError('not_https', `only HTTPS urls allowed: ${target}`));
    }
    return new Promise((resolve, reject) => {
      const send = (again: boolean) => {
        const request = https.request(parsed, { method: call.method, agent: this.agent, headers }, resolve);
        started(request);
        makeRoom(this.agent);
        // The call's deadline destroys the request with its own error, never a reset: not sent again.
        request.once('error', (error) =>
          again && failedOnReusedConnection(request, error) ? send(false) : reject(error),
        );
        request.end(call.body);
      };
      send(true);
    });
  }

  destroy(): void {
    this.agent.destroy();
  }
}
