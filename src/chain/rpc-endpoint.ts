/**
 * One JSON-RPC provider of a chain: its transport (node:http or node:https over keep-alive
 * connections of its own), its own request budget, and what Laurel has seen of it (health, head,
 * latency, eth_getLogs range limit). Known by its name (`base#2`), never by its URL outside this file.
 *
 * Why not fetch: undici's fetch (WHATWG streams, Headers, an AbortSignal and its timers per call)
 * is the largest single cost of Laurel's process in `npm run bench:flow`; a plain request on a
 * kept-alive socket costs a fraction of it. Bodies are decoded natively (textOf; ethers'
 * FetchRequest decodes UTF-8 in JavaScript, the largest cost while the indexer catches up).
 */
import { isAscii } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import { failedOnReusedConnection } from '../reused-connections';
import { RequestRate } from './request-rate';
import { httpFailure, transportFailure } from './rpc-failures';

export type ProviderState = 'ok' | 'down' | 'throttled' | 'lagging';

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number;
  method: string;
  params: readonly unknown[];
}

export type JsonRpcReply =
  { id: number; result: unknown } | { id: number; error: { code: number; message: string; data?: unknown } };

/** Exponentially weighted mean of a provider's answer times (ms); undefined before the first one. */
class Latency {
  private mean?: number;

  add(ms: number): void {
    this.mean = this.mean === undefined ? ms : this.mean * 0.8 + ms * 0.2;
  }

  get value(): number | undefined {
    return this.mean;
  }
}

/**
 * A body as text. Answers are nearly always ASCII (hex, numbers, names): checked natively, then
 * copied as Latin-1, many times cheaper than the UTF-8 decoder (an indexer catching up reads
 * hundreds of bytes of logs per reward).
 */
function textOf(body: Buffer): string {
  return isAscii(body) ? body.toString('latin1') : body.toString('utf8');
}

/** Connections kept open to one provider at most (requests beyond them wait for a free one). */
const MAX_SOCKETS = 64;

/** A request's deadline passed: named as fetch names it, which is what transportFailure reads. */
class RequestTimeout extends Error {
  override name = 'TimeoutError';
}

export class RpcEndpoint {
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly agent: http.Agent;
  readonly rate: RequestRate | null;

  state: ProviderState = 'ok';
  /** Until then the provider asked to be left alone (Retry-After, throttling backoff): nothing is sent. */
  blockedUntil = 0;
  /** Until then the provider is passed over while another one can serve (failure backoff). */
  avoidUntil = 0;
  /** Failures (or throttlings) in a row; reset by an answer. */
  strikes = 0;
  inFlight = 0;
  lastChosenAt = 0;
  /** Latest block number it reported, and when. */
  head: number | undefined;
  headSeenAt = 0;
  headRefresh: Promise<unknown> | null = null;
  /** Widest eth_getLogs block span it accepts (learned from its refusals). */
  logSpanLimit = Number.POSITIVE_INFINITY;
  readonly latency = { calls: new Latency(), logs: new Latency() };

  /** `<chain>#<n>`: the n-th URL of the chain's rpcUrls. */
  readonly name: string;

  constructor(
    chain: string,
    /** Its place in the chain's rpcUrls, from 1 (the metrics' `provider` label). */
    readonly position: number,
    url: string,
    maxRequestsPerSecond: number | undefined,
  ) {
    this.name = `${chain}#${position}`;
    const parsed = new URL(url);
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    // Credentials in the URL travel as the Authorization header, never in a logged URL.
    if (parsed.username || parsed.password) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    this.url = parsed;
    const Agent = parsed.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, scheduling: 'lifo' });
    this.rate = maxRequestsPerSecond === undefined ? null : new RequestRate(maxRequestsPerSecond);
  }

  /**
   * Posts one request or a batch and returns the parsed JSON body. Anything but a 200 with JSON
   * (refused, reset, timeout, HTTP error, unreadable body) is thrown as a ProviderFailure.
   */
  async post(
    body: JsonRpcRequest | JsonRpcRequest[],
    timeoutMs: number,
    stop: AbortSignal,
  ): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    const { status, retryAfter, text } = await this.request(payload, Math.max(1, timeoutMs), stop);
    if (status !== 200) throw httpFailure(status, retryAfter);
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw transportFailure(error);
    }
  }

  /** One POST on a kept-alive connection: its status, Retry-After and body; transport failures thrown. */
  private request(
    payload: Buffer,
    timeoutMs: number,
    stop: AbortSignal,
  ): Promise<{ status: number; retryAfter: string | null; text: string }> {
    const transport = this.url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let settled = false;
      let request: http.ClientRequest | undefined;
      /** Ends the call's deadline and stop listener once; false when the call was settled already. */
      const settle = () => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        stop.removeEventListener('abort', onStop);
        return true;
      };
      const fail = (error: unknown) => {
        if (!settle()) return;
        request?.destroy();
        reject(transportFailure(error));
      };
      const onStop = () => fail(stop.reason);
      const timer = setTimeout(
        () => fail(new RequestTimeout('the provider did not answer in time')),
        timeoutMs,
      );
      const answered = (response: http.IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          // The body of a refusal is not read (the connection is dropped rather than drained).
          if (!settle()) return;
          response.destroy();
          const header = response.headers['retry-after'];
          resolve({ status, retryAfter: (Array.isArray(header) ? header[0] : header) ?? null, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          if (!response.complete) return fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
          if (settle()) resolve({ status, retryAfter: null, text: textOf(Buffer.concat(chunks)) });
        });
      };
      const send = (again: boolean) => {
        const sent = transport.request(
          this.url,
          {
            method: 'POST',
            agent: this.agent,
            headers: { ...this.headers, 'content-length': payload.length },
          },
          answered,
        );
        request = sent;
        // A call its deadline or stop already ended (destroying the request) is not sent again.
        sent.on('error', (error) =>
          again && !settled && failedOnReusedConnection(sent, error) ? send(false) : fail(error),
        );
        sent.end(payload);
      };
      if (stop.aborted) return fail(stop.reason);
      stop.addEventListener('abort', onStop, { once: true });
      send(true);
    });
  }

  /** Closes its kept-alive connections (the pool is closing). */
  close(): void {
    this.agent.destroy();
  }

  /** The host (no path, query or credentials), for the start-up line. */
  get host(): string {
    return this.url.host;
  }
}
