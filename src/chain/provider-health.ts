/**
 * The health of a chain's RPC providers: the backoff of one that failed or asked to be left alone,
 * and the heads they report, which tell a lagging provider from the others.
 */
import { doublingDelayMs } from '../backoff';
import type { Logger } from '../logger';
import type { RpcEndpoint, ProviderState } from './rpc-endpoint';
import type { ProviderFailure } from './rpc-failures';
import type { Need } from './rpc-requests';

/** A head reported longer ago than this says nothing about lag. */
const HEAD_STALE_MS = 15_000;
const FAILURE_BACKOFF_MS = 250;
const THROTTLE_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

export class ProviderStates {
  constructor(
    private readonly chain: string,
    private readonly endpoints: readonly RpcEndpoint[],
    private readonly maxLagBlocks: number,
    private readonly log?: Logger,
  ) {}

  /** The provider answered (an answer or a node's error answer); `ms`: how long it took. */
  answered(endpoint: RpcEndpoint, kind: 'calls' | 'logs', ms: number | null): void {
    if (ms !== null) endpoint.latency[kind].add(ms);
    if (endpoint.strikes === 0 && (endpoint.state === 'ok' || endpoint.state === 'lagging')) return;
    endpoint.strikes = 0;
    endpoint.avoidUntil = 0;
    const now = Date.now();
    this.setState(endpoint, this.isLagging(endpoint, this.bestHead(now), now) ? 'lagging' : 'ok');
  }

  /** The provider could not serve a call: backed off, the longer the more often in a row. */
  failed(endpoint: RpcEndpoint, failure: ProviderFailure): void {
    if (failure.kind === 'lagging') {
      if (endpoint.state === 'ok') this.setState(endpoint, 'lagging');
      return;
    }
    // A provider that answered the other calls of the batch works: a short backoff, not a longer one.
    endpoint.strikes = failure.answeredOthers ? 1 : endpoint.strikes + 1;
    const now = Date.now();
    const backoff = (base: number) => doublingDelayMs(endpoint.strikes - 1, base, MAX_BACKOFF_MS);
    if (failure.kind === 'throttled' || failure.retryAfterMs !== undefined) {
      endpoint.blockedUntil = now + (failure.retryAfterMs ?? backoff(THROTTLE_BACKOFF_MS));
      this.setState(endpoint, 'throttled', {
        reason: failure.reason,
        retryAfterMs: endpoint.blockedUntil - now,
      });
    } else {
      endpoint.avoidUntil = now + backoff(FAILURE_BACKOFF_MS);
      this.setState(endpoint, 'down', { reason: failure.reason });
    }
  }

  /** Logs changes of state only (a provider failing a thousand calls gives one line). */
  private setState(endpoint: RpcEndpoint, state: ProviderState, fields: Record<string, unknown> = {}): void {
    if (endpoint.state === state) return;
    const was = endpoint.state;
    endpoint.state = state;
    const line = { chain: this.chain, provider: endpoint.name, state, was, ...fields };
    if (state === 'ok') this.log?.info(line, 'rpc provider healthy again');
    else if (state === 'lagging')
      this.log?.warn(
        { ...line, head: endpoint.head, bestHead: this.bestHead(Date.now()) },
        'rpc provider lagging',
      );
    else this.log?.warn(line, state === 'throttled' ? 'rpc provider throttling' : 'rpc provider failing');
  }

  /** The highest head reported lately by a provider that is not failing. */
  bestHead(now: number): number | undefined {
    let best: number | undefined;
    for (const endpoint of this.endpoints) {
      if (
        endpoint.head === undefined ||
        now - endpoint.headSeenAt > HEAD_STALE_MS ||
        endpoint.state === 'down'
      )
        continue;
      if (best === undefined || endpoint.head > best) best = endpoint.head;
    }
    return best;
  }

  isLagging(endpoint: RpcEndpoint, best: number | undefined, now: number): boolean {
    return (
      best !== undefined &&
      endpoint.head !== undefined &&
      now - endpoint.headSeenAt <= HEAD_STALE_MS &&
      endpoint.head < best - this.maxLagBlocks
    );
  }

  /** Whether the provider may answer a call that needs `need`. */
  serves(endpoint: RpcEndpoint, need: Need, best: number | undefined, now: number): boolean {
    if (need.fresh && this.isLagging(endpoint, best, now)) return false;
    return need.minBlock < 0 || (endpoint.head ?? -1) >= need.minBlock;
  }

  /** A head the provider reported: it, and every other provider, may now lag or have caught up. */
  observeHead(endpoint: RpcEndpoint, head: number): void {
    if (!Number.isSafeInteger(head)) return;
    const now = Date.now();
    endpoint.head = head;
    endpoint.headSeenAt = now;
    const best = this.bestHead(now);
    for (const other of this.endpoints) {
      if (other.state !== 'ok' && other.state !== 'lagging') continue;
      this.setState(other, this.isLagging(other, best, now) ? 'lagging' : 'ok');
    }
  }
}
