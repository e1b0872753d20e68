/**
 * One JSON-RPC provider of a chain: its transport (Node's fetch, which decodes bodies natively;
 * ethers' FetchRequest decodes UTF-8 in JavaScript, which cost more CPU than anything else while
 * the indexer caught up), its own request budget, and what Laurel has seen of it (health, head,
 * latency, eth_getLogs range limit). Known by its name (`base#2`), never by its URL outside this file.
 */
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

export class RpcEndpoint {
  private readonly url: string;
  private readonly headers: Record<string, string>;
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
    this.headers = { 'content-type': 'application/json' };
    // fetch refuses URLs with credentials: they travel as the Authorization header instead.
    if (parsed.username || parsed.password) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    this.url = parsed.toString();
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
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify(body),
        signal: AbortSignal.any([AbortSignal.timeout(Math.max(1, timeoutMs)), stop]),
      });
    } catch (error) {
      throw transportFailure(error);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw httpFailure(response.status, response.headers.get('retry-after'));
    }
    try {
      return await response.json();
    } catch (error) {
      throw transportFailure(error);
    }
  }

  /** The host (no path, query or credentials), for the start-up line. */
  get host(): string {
    return new URL(this.url).host;
  }
}
