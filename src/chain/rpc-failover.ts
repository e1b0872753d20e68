/**
 * One call run on the providers of a chain, one after the other (the choice: provider-selection.ts)
 * until one answers within the call's deadline: a provider with no answer after a while is joined by
 * the next (hedging), and every attempt's outcome updates the provider's health (provider-health.ts)
 * and metrics. The pool's file comment (rpc-pool.ts) says how and why.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ChainUnavailableError } from '../errors';
import type { LaurelMetrics } from '../metrics';
import type { ProviderStates } from './provider-health';
import { chooseProvider, passedOver, reserve } from './provider-selection';
import type { JsonRpcReply, JsonRpcRequest, RpcEndpoint } from './rpc-endpoint';
import { ProviderFailure, providerFailureOf, RpcAnswerError, TIMEOUT_REASON } from './rpc-failures';
import { ANY_PROVIDER, repliesOf, type Need } from './rpc-requests';

/** A call as the failover runs it: what it needs of a provider, and one attempt on one provider. */
export interface Job<T> {
  need: Need;
  /** Calls it makes (the request budget). */
  cost: number;
  kind: 'calls' | 'logs';
  /** The metrics' `method` label: the call's method, or `batch`. */
  method: string;
  attempt(endpoint: RpcEndpoint, timeoutMs: number): Promise<T>;
}

/** A provider that could not serve a call, and why. */
export interface Failed {
  endpoint: RpcEndpoint;
  failure: ProviderFailure;
}

export type Settled<T> =
  { endpoint: RpcEndpoint; ok: true; value: T } | { endpoint: RpcEndpoint; ok: false; error: unknown };

/** Rounds over the providers within one call's deadline (a round tries each eligible provider once). */
export const MAX_ROUNDS = 3;
const HEAD_REFRESH_MS = 1_000;
const HEDGE_FACTOR = 4;
const MIN_HEDGE_MS = { calls: 300, logs: 2_000 } as const;
export const NOT_SENT_IN_TIME = new ProviderFailure('throttled', 'had no turn before the deadline', false);

/** How a request to a provider ended, for the metrics: `error` is a node's error answer (a revert...). */
type RpcOutcome = 'ok' | 'error' | 'throttled' | 'timeout' | 'lagging' | 'failed';

function outcomeOf(failure: ProviderFailure): RpcOutcome {
  if (failure.kind !== 'unavailable') return failure.kind;
  return failure.reason === TIMEOUT_REASON ? 'timeout' : 'failed';
}

/** The first of `promises` to settle, or null after `ms`. */
async function firstOf<T>(
  promises: ReadonlySet<Promise<T>>,
  ms: number,
): Promise<{ promise: Promise<T>; value: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms), null);
  });
  try {
    return await Promise.race([
      ...[...promises].map((promise) => promise.then((value) => ({ promise, value }))),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class RpcFailover {
  private nextId = 1;

  constructor(
    private readonly chain: string,
    private readonly endpoints: readonly RpcEndpoint[],
    /** Deadline of one call, all providers and retries included (RPC_TIMEOUT_MS). */
    private readonly timeoutMs: number,
    private readonly health: ProviderStates,
    /** Aborted when the pool closes: every wait and request in flight stops. */
    private readonly closing: AbortSignal,
    private readonly metrics?: LaurelMetrics | null,
  ) {}

  /**
   * Runs `job` on one provider after the other (see rpc-pool.ts) until one answers; an answer
   * that is an error (not a ProviderFailure) is thrown as it is.
   */
  async run<T>(job: Job<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    // With one provider there is nothing to choose: no head bookkeeping.
    const need = this.endpoints.length > 1 ? job.need : ANY_PROVIDER;
    if (need.fresh || need.minBlock >= 0) void this.refreshHeads(deadline);
    if (need.minBlock >= 0 && !this.endpoints.some((e) => (e.head ?? -1) >= need.minBlock)) {
      await this.refreshHeads(deadline, true);
    }
    const failures: Failed[] = [];
    const tried = new Set<RpcEndpoint>();
    const running = new Set<Promise<Settled<T>>>();
    let rounds = 1;
    let headsRechecked = false;
    let hedgeAt = Number.POSITIVE_INFINITY;
    for (;;) {
      const now = Date.now();
      if (running.size === 0 || now >= hedgeAt) {
        const next = chooseProvider(this.endpoints, this.health, need, job.cost, tried, now);
        if (next && (running.size === 0 || next.wait === 0) && now + next.wait < deadline) {
          tried.add(next.endpoint);
          const wait = reserve(next.endpoint, job.cost, now);
          running.add(this.attempt(next.endpoint, job, wait, deadline));
          hedgeAt = now + wait + this.hedgeDelay(next.endpoint, job.kind);
        } else if (!headsRechecked && passedOver(this.endpoints, tried, now).length > 0) {
          // A provider passed over for its head (lagging, or short of the block) may only be known
          // from a while ago, when a block was just mined: ask it for its head once, before failing
          // or giving up on a hedge, then choose again (an attempt under way goes on meanwhile).
          headsRechecked = true;
          await this.refreshHeads(deadline, true, passedOver(this.endpoints, tried, now));
          continue;
        } else if (running.size === 0) {
          // Every provider tried: another round when one of them may answer within the deadline.
          const again =
            failures.length > 0 &&
            rounds < MAX_ROUNDS &&
            chooseProvider(this.endpoints, this.health, need, job.cost, new Set(), now);
          if (again && now + again.wait < deadline) {
            rounds += 1;
            tried.clear();
            continue;
          }
          throw this.unavailable(failures, need, deadline);
        } else {
          // Nobody to hedge with now: one that must wait for its budget or Retry-After is tried
          // once it may be (an attempt on a provider that never answers would otherwise hold the
          // call until the deadline); none before the deadline, nobody.
          hedgeAt = next && now + next.wait < deadline ? now + next.wait : Number.POSITIVE_INFINITY;
        }
      }
      const first = await firstOf(running, Math.min(hedgeAt, deadline) - Date.now());
      if (!first) {
        if (Date.now() >= deadline) throw this.unavailable(failures, need, deadline);
        continue;
      }
      running.delete(first.promise);
      const settled = first.value;
      if (settled.ok) return settled.value;
      if (!(settled.error instanceof ProviderFailure)) throw settled.error;
      failures.push({ endpoint: settled.endpoint, failure: settled.error });
      hedgeAt = Date.now(); // the next provider at once
    }
  }

  /** One attempt on one provider; never rejects. Its outcome updates the provider's health. */
  attempt<T>(endpoint: RpcEndpoint, job: Job<T>, wait: number, deadline: number): Promise<Settled<T>> {
    const run = async (): Promise<Settled<T>> => {
      endpoint.inFlight += 1;
      let started: number | null = null;
      try {
        if (wait > 0) await sleep(wait, undefined, { signal: this.closing });
        // Its turn came too late: never sent, so nothing to hold against the provider.
        if (Date.now() >= deadline) return { endpoint, ok: false, error: NOT_SENT_IN_TIME };
        started = performance.now();
        const value = await job.attempt(endpoint, deadline - Date.now());
        const ms = performance.now() - started;
        this.health.answered(endpoint, job.kind, ms);
        this.measured(endpoint, job.method, 'ok', ms);
        return { endpoint, ok: true, value };
      } catch (error) {
        const ms = started === null ? null : performance.now() - started;
        if (error instanceof ProviderFailure) {
          this.health.failed(endpoint, error);
          if (ms !== null) this.measured(endpoint, job.method, outcomeOf(error), ms);
        } else {
          this.health.answered(endpoint, job.kind, null);
          if (ms !== null) this.measured(endpoint, job.method, 'error', ms);
        }
        return { endpoint, ok: false, error };
      } finally {
        endpoint.inFlight -= 1;
      }
    };
    return run();
  }

  /** laurel_rpc_* (labels: the chain, the provider's place in rpcUrls, the method or `batch`). */
  private measured(endpoint: RpcEndpoint, method: string, outcome: RpcOutcome, ms: number): void {
    if (!this.metrics) return;
    const provider = String(endpoint.position);
    this.metrics.rpcRequests.inc({ chain: this.chain, provider, method, outcome });
    this.metrics.rpcDuration.observe({ chain: this.chain, provider, method }, ms / 1000);
    if (outcome === 'throttled') this.metrics.rpcThrottled.inc({ chain: this.chain, provider });
  }

  private hedgeDelay(endpoint: RpcEndpoint, kind: 'calls' | 'logs'): number {
    const usual = endpoint.latency[kind].value ?? 0;
    return Math.min(this.timeoutMs / 2, Math.max(MIN_HEDGE_MS[kind], HEDGE_FACTOR * usual));
  }

  /**
   * The 503 of a call no provider could answer: `its node refused the connection` for a chain with
   * one provider, `no provider answered (base#1 refused the connection; base#2 answered HTTP 429)`.
   */
  unavailable(failures: readonly Failed[], need: Need, deadline: number): ChainUnavailableError {
    const late = Date.now() >= deadline;
    const mayHaveArrived = late || failures.some(({ failure }) => failure.mayHaveArrived);
    let reason: string;
    if (failures.length && this.endpoints.length === 1)
      reason = `its node ${failures[failures.length - 1].failure.reason}`;
    else if (failures.length) {
      const each = new Set(failures.map(({ endpoint, failure }) => `${endpoint.name} ${failure.reason}`));
      reason = `no provider answered (${[...each].join('; ')})`;
    } else if (late) reason = `no answer within ${this.timeoutMs} ms`;
    else if (need.minBlock >= 0) reason = `no provider has reached block ${need.minBlock} yet`;
    else reason = 'every provider is rate-limited';
    return new ChainUnavailableError(this.chain, reason, mayHaveArrived);
  }

  /**
   * Asks eth_blockNumber of every provider whose head is older than HEAD_REFRESH_MS, and of each of
   * `askNow` whatever its age (not of one that asked to be left alone or is failing, nor beyond its
   * budget). In the background unless `wait`: then resolves when they answered (or the deadline passed).
   */
  refreshHeads(deadline: number, wait = false, askNow: readonly RpcEndpoint[] = []): Promise<unknown> {
    const at = Date.now();
    const refreshes = this.endpoints.map((endpoint) => {
      if (endpoint.headRefresh) return endpoint.headRefresh;
      const fresh = at - endpoint.headSeenAt < HEAD_REFRESH_MS && !askNow.includes(endpoint);
      const resting = endpoint.blockedUntil > at || (endpoint.avoidUntil > at && !wait);
      if (fresh || resting || (endpoint.rate?.waitFor(1, at) ?? 0) > 0) return undefined;
      endpoint.headRefresh = this.probe(endpoint, deadline - at).finally(() => (endpoint.headRefresh = null));
      return endpoint.headRefresh;
    });
    return wait ? Promise.all(refreshes) : Promise.resolve();
  }

  /** eth_blockNumber of one provider, no failover; never rejects. */
  probe(endpoint: RpcEndpoint, timeoutMs: number): Promise<Settled<number>> {
    const deadline = Date.now() + timeoutMs;
    const job: Job<number> = {
      need: { fresh: false, minBlock: -1 },
      cost: 1,
      kind: 'calls',
      method: 'eth_blockNumber',
      attempt: async (e, left) => {
        const request = this.request('eth_blockNumber', []);
        const reply = await this.postOne(e, request, left);
        if ('error' in reply) {
          throw (
            providerFailureOf(request.method, reply.error) ?? new RpcAnswerError(request.method, reply.error)
          );
        }
        const head = Number(reply.result);
        this.health.observeHead(e, head);
        return head;
      },
    };
    return this.attempt(endpoint, job, reserve(endpoint, 1, Date.now()), deadline);
  }

  /** Posts one call to one provider and returns its reply (a missing reply is the provider's failure). */
  async postOne(endpoint: RpcEndpoint, request: JsonRpcRequest, timeoutMs: number): Promise<JsonRpcReply> {
    const body = await endpoint.post(request, timeoutMs, this.closing);
    const reply = repliesOf(body, [request]).get(request.id);
    if (!reply) throw new ProviderFailure('unavailable', 'answered without a reply to the call', true);
    return reply;
  }

  request(method: string, params: readonly unknown[]): JsonRpcRequest {
    // Ids of the pool's own calls, far from those of ethers' (each body is answered on its own anyway).
    return { jsonrpc: '2.0', id: 1_000_000_000 + (this.nextId++ % 1_000_000_000), method, params };
  }
}
