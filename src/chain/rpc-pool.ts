/**
 * The RPC providers of one chain, used as one: every call goes to one healthy provider and moves
 * to the next on a failure; signed transactions go to all of them.
 *
 * Choosing (per call or JSON-RPC batch):
 * - A provider that asked to be left alone (HTTP 429 / 503 with Retry-After, JSON-RPC -32005 or a
 *   rate-limit message: backoff from 1 s doubling to 30 s) gets nothing until then.
 * - Laurel's own budget per provider (maxRequestsPerSecond, src/chain/request-rate.ts): a call
 *   waits for its turn, preferring a provider with budget left.
 * - A provider that failed (refused, reset, timeout, 5xx, unreadable answer, node-side transient
 *   error) is passed over while another can serve, for a backoff from 250 ms doubling to 30 s;
 *   then it gets traffic again, and its first answer makes it healthy.
 * - Among the rest: fewest calls in flight, then least recently used (calls are spread; a slow
 *   provider accumulates calls in flight and gets fewer).
 * - Lag: the head (eth_blockNumber) and everything read at the provider's current state ('latest',
 *   'pending', receipts, nonces, estimates) is never asked of a provider whose head is more than
 *   maxProviderLagBlocks behind the best head reported by the healthy others; a read pinned to a
 *   block number (eth_getLogs ranges, eth_getBlockByNumber(n)) only goes to a provider that has
 *   reported that block. Heads are refreshed in the background, at most once a second per provider,
 *   while calls are made.
 * - Hedging: a call with no answer after 4 × the provider's usual answer time (at least 300 ms;
 *   2 s for eth_getLogs) is also sent to the next provider; the first answer wins, so a provider
 *   that hangs costs a little latency, not a timeout.
 * - Every call has the chain's deadline (RPC_TIMEOUT_MS) in all; when no provider could answer in
 *   it, ChainUnavailableError names each provider's failure (`local#1: connection refused`).
 *
 * Broadcasting (eth_sendRawTransaction) sends the signed transaction to every provider at once (again
 * to one that failed, after its backoff, until one accepts it): the first acceptance (or "already
 * known": it is idempotent by hash) is the answer, and the other sends still complete, so one dead
 * provider cannot lose it. When none accepts, a node's refusal is
 * the answer (after a short grace for another provider's acceptance).
 *
 * Why not ethers' FallbackProvider or viem's fallback transport: FallbackProvider is an
 * AbstractProvider, not a JsonRpcProvider (Laurel calls `provider.send` with raw methods), and
 * answers by quorum (two providers asked for every call, answers compared); viem's `fallback`
 * (ranks transports by latency, retries on the next) belongs to viem's clients. Neither limits its
 * own rate per provider, honours Retry-After, keeps lagging providers from the head or adapts
 * eth_getLogs ranges. This layer takes the ideas (viem's ranking and retry on the next, ethers'
 * stall timeout and broadcast to all, Ponder's per-chain rate limits and getLogs retry wordings)
 * under ethers' JsonRpcProvider (src/chain/pooled-provider.ts).
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { keccak256 } from 'ethers';
import { ChainUnavailableError } from '../errors';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { logRangeAdvice } from './log-ranges';
import { RpcEndpoint, type JsonRpcReply, type JsonRpcRequest, type ProviderState } from './rpc-endpoint';
import {
  isAlreadyKnown,
  ProviderFailure,
  providerFailureOf,
  RpcAnswerError,
  TIMEOUT_REASON,
} from './rpc-failures';

export interface RpcPoolOptions {
  chain: string;
  rpcUrls: readonly { url: string; maxRequestsPerSecond?: number }[];
  /** Deadline of one call, all providers and retries included (RPC_TIMEOUT_MS). */
  timeoutMs: number;
  maxLagBlocks: number;
  log?: Logger;
  metrics?: LaurelMetrics | null;
}

/** A log as eth_getLogs answers it (hex quantities). */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  logIndex: string;
  transactionHash: string;
  blockTimestamp?: string;
}

/**
 * The time of a log's block (seconds since the epoch) when the node put it on the log
 * (`blockTimestamp`: anvil, reth and recent geth do, in eth_getLogs and in receipts); undefined
 * when it did not, or sent something that is no time.
 */
export function logBlockTime(log: { blockTimestamp?: unknown }): number | undefined {
  const time = typeof log.blockTimestamp === 'string' ? Number(log.blockTimestamp) : NaN;
  return Number.isSafeInteger(time) && time >= 0 ? time : undefined;
}

export interface LogFilter {
  fromBlock: number;
  toBlock: number;
  address: string[];
  topics: string[][];
}

export interface ProviderHealth {
  /** `<chain>#<n>`. */
  name: string;
  ok: boolean;
  state: ProviderState;
}

/** What a call needs of the provider answering it. */
interface Need {
  /** Reads the provider's current state (the head, 'latest', 'pending', receipts): no lagging provider. */
  fresh: boolean;
  /** Reads this block or an older one: only a provider that reported it (-1: none). */
  minBlock: number;
}

interface Job<T> {
  need: Need;
  /** Calls it makes (the request budget). */
  cost: number;
  kind: 'calls' | 'logs';
  /** The metrics' `method` label: the call's method, or `batch`. */
  method: string;
  attempt(endpoint: RpcEndpoint, timeoutMs: number): Promise<T>;
}

/** A provider that could not serve a call, and why. */
interface Failed {
  endpoint: RpcEndpoint;
  failure: ProviderFailure;
}

type Settled<T> =
  { endpoint: RpcEndpoint; ok: true; value: T } | { endpoint: RpcEndpoint; ok: false; error: unknown };

/** Rounds over the providers within one call's deadline (a round tries each eligible provider once). */
const MAX_ROUNDS = 3;
const HEAD_REFRESH_MS = 1_000;
/** A head reported longer ago than this says nothing about lag. */
const HEAD_STALE_MS = 15_000;
const FAILURE_BACKOFF_MS = 250;
const THROTTLE_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
const HEDGE_FACTOR = 4;
const MIN_HEDGE_MS = { calls: 300, logs: 2_000 } as const;
/** /ready's probe of each provider. */
const PROBE_TIMEOUT_MS = 2_000;
/** After a node refused a transaction, how long another provider's acceptance is awaited. */
const REJECTION_GRACE_MS = 1_000;

const hex = (n: number) => `0x${n.toString(16)}`;
/** No constraint on the provider (a chain with one provider). */
const ANY: Need = { fresh: false, minBlock: -1 };
const NOT_SENT_IN_TIME = new ProviderFailure('throttled', 'had no turn before the deadline', false);

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

/** Where the JSON-RPC methods that take a block (number or tag) take it. */
export const BLOCK_PARAMETER: Readonly<Record<string, number>> = {
  eth_getBlockByNumber: 0,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_feeHistory: 1,
};

/** What `request` needs: a block number pins it to providers that have that block, a tag or none needs a fresh one. */
export function needOf(request: Pick<JsonRpcRequest, 'method' | 'params'>): Need {
  const blockOf = (value: unknown): number | null =>
    typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value) ? parseInt(value, 16) : null;
  if (request.method === 'eth_getLogs') {
    const filter = (request.params[0] ?? {}) as { toBlock?: unknown; blockHash?: unknown };
    const to = filter.blockHash === undefined ? blockOf(filter.toBlock) : null;
    return to === null ? { fresh: true, minBlock: -1 } : { fresh: false, minBlock: to };
  }
  const position = BLOCK_PARAMETER[request.method];
  const block = position === undefined ? null : blockOf(request.params[position]);
  return block === null ? { fresh: true, minBlock: -1 } : { fresh: false, minBlock: block };
}

function combined(needs: Need[]): Need {
  return {
    fresh: needs.some((need) => need.fresh),
    minBlock: Math.max(-1, ...needs.map((need) => need.minBlock)),
  };
}

/** The replies of a body, by id; a single error answered to a batch applies to every call of it. */
function repliesOf(body: unknown, sent: readonly JsonRpcRequest[]): Map<number, JsonRpcReply> {
  const replies = new Map<number, JsonRpcReply>();
  const list = Array.isArray(body) ? body : [body];
  for (const reply of list as JsonRpcReply[]) {
    if (reply && typeof reply === 'object' && typeof reply.id === 'number') replies.set(reply.id, reply);
  }
  const shared = !Array.isArray(body) && body && typeof body === 'object' && 'error' in body;
  if (shared && replies.size === 0) {
    for (const request of sent) replies.set(request.id, { ...(body as JsonRpcReply), id: request.id });
  }
  return replies;
}

export class RpcPool {
  readonly chain: string;
  readonly endpoints: readonly RpcEndpoint[];
  private readonly timeoutMs: number;
  private readonly maxLagBlocks: number;
  private readonly log?: Logger;
  private readonly metrics?: LaurelMetrics | null;
  private readonly closing = new AbortController();
  private nextId = 1;
  /** Calls per HTTP request at most: the smallest whole per-second budget of a provider. */
  private readonly largestBatch: number;

  constructor(options: RpcPoolOptions) {
    this.chain = options.chain;
    this.timeoutMs = options.timeoutMs;
    this.maxLagBlocks = options.maxLagBlocks;
    this.log = options.log;
    this.metrics = options.metrics;
    // Every call in flight listens for the pool's closing: as many listeners as calls.
    setMaxListeners(0, this.closing.signal);
    this.endpoints = options.rpcUrls.map(
      (endpoint, index) =>
        new RpcEndpoint(options.chain, index + 1, endpoint.url, endpoint.maxRequestsPerSecond),
    );
    const budgets = this.endpoints.map((endpoint) => Math.floor(endpoint.rate?.perSecond ?? Infinity));
    this.largestBatch = Math.max(1, Math.min(...budgets));
  }

  /** Stops every call in flight and closes the providers' connections (the provider is being destroyed). */
  close(): void {
    this.closing.abort();
    for (const endpoint of this.endpoints) endpoint.close();
  }

  // ------------------------------------------------------------------ calls

  /**
   * Answers JSON-RPC calls (one, or an ethers batch) with one reply each, in order; a call no
   * provider could answer gets the ChainUnavailableError in `failures` (by id) instead.
   */
  async send(
    requests: readonly JsonRpcRequest[],
  ): Promise<{ replies: JsonRpcReply[]; failures: Map<number, Error> }> {
    const broadcasts = requests.filter((request) => request.method === 'eth_sendRawTransaction');
    const calls = requests.filter((request) => request.method !== 'eth_sendRawTransaction');
    const replies = new Map<number, JsonRpcReply>();
    const failures = new Map<number, Error>();
    // A batch never costs more than a provider's one-second budget: larger ones go out in parts.
    const parts: JsonRpcRequest[][] = [];
    for (let i = 0; i < calls.length; i += this.largestBatch)
      parts.push(calls.slice(i, i + this.largestBatch));
    await Promise.all([
      ...parts.map((part) => this.call(part, replies, failures)),
      ...broadcasts.map(async (request) => {
        try {
          replies.set(request.id, await this.broadcast(request));
        } catch (error) {
          failures.set(request.id, error as Error);
        }
      }),
    ]);
    return {
      replies: requests
        .filter((request) => replies.has(request.id))
        .map((request) => replies.get(request.id)!),
      failures,
    };
  }

  private async call(
    requests: readonly JsonRpcRequest[],
    replies: Map<number, JsonRpcReply>,
    failures: Map<number, Error>,
  ): Promise<void> {
    const needs = new Map(requests.map((request) => [request.id, needOf(request)]));
    try {
      await this.run({
        need: combined([...needs.values()]),
        cost: requests.length,
        kind: requests.some((request) => request.method === 'eth_getLogs') ? 'logs' : 'calls',
        method: requests.length === 1 ? requests[0].method : 'batch',
        attempt: async (endpoint, timeoutMs) => {
          const open = requests.filter((request) => !replies.has(request.id));
          if (!open.length) return;
          const body = await endpoint.post(
            open.length === 1 ? open[0] : open,
            timeoutMs,
            this.closing.signal,
          );
          const answered = repliesOf(body, open);
          // A head that lags makes this provider's answers to fresh reads stale as well.
          for (const request of open) {
            const reply = answered.get(request.id);
            if (request.method === 'eth_blockNumber' && reply && 'result' in reply) {
              this.observeHead(endpoint, Number(reply.result));
            }
          }
          const lagging = this.isLagging(endpoint, this.bestHead(Date.now()), Date.now());
          let failure: ProviderFailure | undefined;
          for (const request of open) {
            const reply = answered.get(request.id);
            const failed = !reply
              ? new ProviderFailure('unavailable', 'answered without a reply to a call', true)
              : lagging && needs.get(request.id)!.fresh
                ? new ProviderFailure('lagging', 'lags behind the other providers', false)
                : 'error' in reply
                  ? providerFailureOf(request.method, reply.error)
                  : null;
            if (failed) failure ??= failed;
            else if (!replies.has(request.id)) replies.set(request.id, reply!);
          }
          if (failure) {
            failure.answeredOthers = open.some((request) => replies.has(request.id));
            throw failure;
          }
        },
      });
    } catch (error) {
      if (!(error instanceof ChainUnavailableError)) throw error;
      for (const request of requests) if (!replies.has(request.id)) failures.set(request.id, error);
    }
  }

  /**
   * Runs `job` on one provider after the other (see the file comment) until one answers; an answer
   * that is an error (not a ProviderFailure) is thrown as it is.
   */
  private async run<T>(job: Job<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    // With one provider there is nothing to choose: no head bookkeeping.
    const need = this.endpoints.length > 1 ? job.need : ANY;
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
        const next = this.choose(need, job.cost, tried, now);
        if (next && (running.size === 0 || next.wait === 0) && now + next.wait < deadline) {
          tried.add(next.endpoint);
          const wait = this.reserve(next.endpoint, job.cost, now);
          running.add(this.attempt(next.endpoint, job, wait, deadline));
          hedgeAt = now + wait + this.hedgeDelay(next.endpoint, job.kind);
        } else if (!headsRechecked && this.passedOver(tried, now).length > 0) {
          // A provider passed over for its head (lagging, or short of the block) may only be known
          // from a while ago, when a block was just mined: ask it for its head once, before failing
          // or giving up on a hedge, then choose again (an attempt under way goes on meanwhile).
          headsRechecked = true;
          await this.refreshHeads(deadline, true, this.passedOver(tried, now));
          continue;
        } else if (running.size === 0) {
          // Every provider tried: another round when one of them may answer within the deadline.
          const again =
            failures.length > 0 && rounds < MAX_ROUNDS && this.choose(need, job.cost, new Set(), now);
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

  /** The providers not tried yet and not blocked (Retry-After): those `choose` passed over for their head. */
  private passedOver(tried: ReadonlySet<RpcEndpoint>, now: number): RpcEndpoint[] {
    return this.endpoints.filter((e) => !tried.has(e) && e.blockedUntil <= now);
  }

  /** The best provider for `job` not yet tried, and how long it would make the call wait. */
  private choose(
    need: Need,
    cost: number,
    tried: ReadonlySet<RpcEndpoint>,
    now: number,
  ): { endpoint: RpcEndpoint; wait: number } | undefined {
    const best = this.bestHead(now);
    let chosen: { endpoint: RpcEndpoint; wait: number; avoided: boolean } | undefined;
    for (const endpoint of this.endpoints) {
      if (tried.has(endpoint) || !this.serves(endpoint, need, best, now)) continue;
      const wait = this.waitOf(endpoint, cost, now);
      const candidate = { endpoint, wait, avoided: endpoint.avoidUntil > now };
      if (!chosen || RpcPool.before(candidate, chosen)) chosen = candidate;
    }
    return chosen;
  }

  private static before(
    a: { endpoint: RpcEndpoint; wait: number; avoided: boolean },
    b: { endpoint: RpcEndpoint; wait: number; avoided: boolean },
  ): boolean {
    if (a.avoided !== b.avoided) return !a.avoided;
    if (a.wait !== b.wait) return a.wait < b.wait;
    if (a.endpoint.inFlight !== b.endpoint.inFlight) return a.endpoint.inFlight < b.endpoint.inFlight;
    return a.endpoint.lastChosenAt < b.endpoint.lastChosenAt;
  }

  /** How long `cost` calls would wait for this provider: its Retry-After, then its budget. */
  private waitOf(endpoint: RpcEndpoint, cost: number, now: number): number {
    return Math.max(0, endpoint.blockedUntil - now, endpoint.rate?.waitFor(cost, now) ?? 0);
  }

  /** Takes the provider's budget for `cost` calls; returns how long to wait before sending. */
  private reserve(endpoint: RpcEndpoint, cost: number, now: number): number {
    endpoint.lastChosenAt = now;
    return Math.max(0, endpoint.blockedUntil - now, endpoint.rate?.take(cost, now) ?? 0);
  }

  /** One attempt on one provider; never rejects. Its outcome updates the provider's health. */
  private attempt<T>(
    endpoint: RpcEndpoint,
    job: Job<T>,
    wait: number,
    deadline: number,
  ): Promise<Settled<T>> {
    const run = async (): Promise<Settled<T>> => {
      endpoint.inFlight += 1;
      let started: number | null = null;
      try {
        if (wait > 0) await sleep(wait, undefined, { signal: this.closing.signal });
        // Its turn came too late: never sent, so nothing to hold against the provider.
        if (Date.now() >= deadline) return { endpoint, ok: false, error: NOT_SENT_IN_TIME };
        started = performance.now();
        const value = await job.attempt(endpoint, deadline - Date.now());
        const ms = performance.now() - started;
        this.answered(endpoint, job.kind, ms);
        this.measured(endpoint, job.method, 'ok', ms);
        return { endpoint, ok: true, value };
      } catch (error) {
        const ms = started === null ? null : performance.now() - started;
        if (error instanceof ProviderFailure) {
          this.failed(endpoint, error);
          if (ms !== null) this.measured(endpoint, job.method, outcomeOf(error), ms);
        } else {
          this.answered(endpoint, job.kind, null);
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
  private unavailable(failures: readonly Failed[], need: Need, deadline: number): ChainUnavailableError {
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

  // ------------------------------------------------------------------ health

  private answered(endpoint: RpcEndpoint, kind: 'calls' | 'logs', ms: number | null): void {
    if (ms !== null) endpoint.latency[kind].add(ms);
    if (endpoint.strikes === 0 && (endpoint.state === 'ok' || endpoint.state === 'lagging')) return;
    endpoint.strikes = 0;
    endpoint.avoidUntil = 0;
    const now = Date.now();
    this.setState(endpoint, this.isLagging(endpoint, this.bestHead(now), now) ? 'lagging' : 'ok');
  }

  private failed(endpoint: RpcEndpoint, failure: ProviderFailure): void {
    if (failure.kind === 'lagging') {
      if (endpoint.state === 'ok') this.setState(endpoint, 'lagging');
      return;
    }
    // A provider that answered the other calls of the batch works: a short backoff, not a longer one.
    endpoint.strikes = failure.answeredOthers ? 1 : endpoint.strikes + 1;
    const now = Date.now();
    const backoff = (base: number) =>
      Math.min(MAX_BACKOFF_MS, base * 2 ** Math.min(16, endpoint.strikes - 1));
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

  // ------------------------------------------------------------------ heads

  /** The highest head reported lately by a provider that is not failing. */
  private bestHead(now: number): number | undefined {
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

  private isLagging(endpoint: RpcEndpoint, best: number | undefined, now: number): boolean {
    return (
      best !== undefined &&
      endpoint.head !== undefined &&
      now - endpoint.headSeenAt <= HEAD_STALE_MS &&
      endpoint.head < best - this.maxLagBlocks
    );
  }

  private serves(endpoint: RpcEndpoint, need: Need, best: number | undefined, now: number): boolean {
    if (need.fresh && this.isLagging(endpoint, best, now)) return false;
    return need.minBlock < 0 || (endpoint.head ?? -1) >= need.minBlock;
  }

  private observeHead(endpoint: RpcEndpoint, head: number): void {
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

  /**
   * Asks eth_blockNumber of every provider whose head is older than HEAD_REFRESH_MS, and of each of
   * `askNow` whatever its age (not of one that asked to be left alone or is failing, nor beyond its
   * budget). In the background unless `wait`: then resolves when they answered (or the deadline passed).
   */
  private refreshHeads(
    deadline: number,
    wait = false,
    askNow: readonly RpcEndpoint[] = [],
  ): Promise<unknown> {
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
  private probe(endpoint: RpcEndpoint, timeoutMs: number): Promise<Settled<number>> {
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
        this.observeHead(e, head);
        return head;
      },
    };
    return this.attempt(endpoint, job, this.reserve(endpoint, 1, Date.now()), deadline);
  }

  /** For /ready: each provider asked for its head now (except one that asked to be left alone). */
  async check(): Promise<ProviderHealth[]> {
    const now = Date.now();
    await Promise.all(
      this.endpoints.map((endpoint) =>
        endpoint.blockedUntil > now
          ? undefined
          : this.probe(endpoint, Math.min(this.timeoutMs, PROBE_TIMEOUT_MS)),
      ),
    );
    return this.endpoints.map((endpoint) => ({
      name: endpoint.name,
      ok: endpoint.state === 'ok',
      state: endpoint.state,
    }));
  }

  /** Posts one call to one provider and returns its reply (a missing reply is the provider's failure). */
  private async postOne(
    endpoint: RpcEndpoint,
    request: JsonRpcRequest,
    timeoutMs: number,
  ): Promise<JsonRpcReply> {
    const body = await endpoint.post(request, timeoutMs, this.closing.signal);
    const reply = repliesOf(body, [request]).get(request.id);
    if (!reply) throw new ProviderFailure('unavailable', 'answered without a reply to the call', true);
    return reply;
  }

  private request(method: string, params: readonly unknown[]): JsonRpcRequest {
    // Ids of the pool's own calls, far from those of ethers' (each body is answered on its own anyway).
    return { jsonrpc: '2.0', id: 1_000_000_000 + (this.nextId++ % 1_000_000_000), method, params };
  }

  // ------------------------------------------------------------------ broadcasting

  /** Sends a signed transaction to every provider (see the file comment). */
  private async broadcast(request: JsonRpcRequest): Promise<JsonRpcReply> {
    const hash = keccak256(String(request.params[0]));
    const deadline = Date.now() + this.timeoutMs;
    const failures: Failed[] = [];
    let refusal: JsonRpcReply | undefined;
    const job: Job<JsonRpcReply> = {
      need: { fresh: false, minBlock: -1 },
      cost: 1,
      kind: 'calls',
      method: request.method,
      attempt: async (endpoint, timeoutMs) => {
        const reply = await this.postOne(endpoint, request, timeoutMs);
        if (!('error' in reply)) return reply;
        if (isAlreadyKnown(reply.error)) return { id: request.id, result: hash };
        const failure = providerFailureOf(request.method, reply.error);
        if (failure) throw failure;
        refusal ??= reply;
        throw new RpcAnswerError(request.method, reply.error);
      },
    };
    let done = false;
    // Each provider gets the transaction, sent again after a failure (it is idempotent by hash)
    // until one accepts it, up to MAX_ROUNDS times within the deadline.
    const sendTo = async (endpoint: RpcEndpoint): Promise<Settled<JsonRpcReply>> => {
      let settled: Settled<JsonRpcReply> = { endpoint, ok: false, error: NOT_SENT_IN_TIME };
      for (let round = 1; round <= MAX_ROUNDS && !done; round += 1) {
        const now = Date.now();
        // A retry first waits out the failure backoff; Retry-After and the budget are waited in attempt().
        const backoff = round > 1 ? Math.max(0, endpoint.avoidUntil - now) : 0;
        if (now + Math.max(backoff, this.waitOf(endpoint, 1, now)) >= deadline) break;
        if (backoff > 0) await sleep(backoff, undefined, { signal: this.closing.signal });
        settled = await this.attempt(endpoint, job, this.reserve(endpoint, 1, Date.now()), deadline);
        if (settled.ok || !(settled.error instanceof ProviderFailure)) break;
        // Every failure counts: one that may have reached the node makes the outcome ambiguous.
        failures.push({ endpoint, failure: settled.error });
      }
      if (!settled.ok && settled.error === NOT_SENT_IN_TIME)
        failures.push({ endpoint, failure: NOT_SENT_IN_TIME });
      return settled;
    };
    const sends = this.endpoints.map(sendTo);
    return new Promise<JsonRpcReply>((resolve, reject) => {
      let left = sends.length;
      let grace: NodeJS.Timeout | undefined;
      const settle = (outcome: JsonRpcReply | Error) => {
        if (done) return;
        done = true;
        clearTimeout(grace);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      for (const send of sends) {
        void send.then(
          (settled) => {
            left -= 1;
            if (settled.ok) return settle(settled.value);
            if (!(settled.error instanceof ProviderFailure)) {
              grace ??= setTimeout(() => settle(refusal!), REJECTION_GRACE_MS);
            }
            if (left === 0) settle(refusal ?? this.unavailable(failures, job.need, deadline));
          },
          (error: Error) => settle(error), // closed while waiting
        );
      }
    });
  }

  // ------------------------------------------------------------------ eth_getLogs

  /**
   * The logs matching `filter`, in as many eth_getLogs calls as the providers' limits need: a
   * range a provider refuses for its width is split (its limit remembered), one refused for the
   * number of results is narrowed for the rest of this call (see log-ranges.ts). Throws a
   * ChainUnavailableError when no provider answers, and an RpcAnswerError for any other node error
   * (or when a single block holds more logs than a provider will return).
   */
  async getLogs(filter: LogFilter): Promise<RawLog[]> {
    const logs: RawLog[] = [];
    let from = filter.fromBlock;
    let resultSpanLimit = Number.POSITIVE_INFINITY;
    while (from <= filter.toBlock) {
      const start = from;
      const part = await this.run({
        need: { fresh: false, minBlock: filter.toBlock },
        cost: 1,
        kind: 'logs',
        method: 'eth_getLogs',
        attempt: async (endpoint, timeoutMs) => {
          const span = Math.min(endpoint.logSpanLimit, resultSpanLimit, filter.toBlock - start + 1);
          const to = start + span - 1;
          const request = this.request('eth_getLogs', [
            { fromBlock: hex(start), toBlock: hex(to), address: filter.address, topics: filter.topics },
          ]);
          const reply = await this.postOne(endpoint, request, timeoutMs);
          if ('error' in reply) {
            const failure = providerFailureOf(request.method, reply.error);
            if (failure) throw failure;
            const advice = logRangeAdvice(reply.error.message, span);
            if (!advice || span === 1) throw new RpcAnswerError(request.method, reply.error);
            return { to, logs: null, advice, endpoint };
          }
          if (!Array.isArray(reply.result)) {
            throw new ProviderFailure('unavailable', 'answered without a list of logs', true);
          }
          return { to, logs: reply.result as RawLog[], advice: null, endpoint };
        },
      });
      if (part.advice) {
        if (part.advice.kind === 'range') {
          part.endpoint.logSpanLimit = part.advice.maxSpan;
          this.log?.info(
            { chain: this.chain, provider: part.endpoint.name, maxBlocks: part.advice.maxSpan },
            'rpc provider limits eth_getLogs ranges',
          );
        } else {
          resultSpanLimit = part.advice.maxSpan;
        }
        continue;
      }
      for (const log of part.logs!) logs.push(log);
      from = part.to + 1;
    }
    return logs;
  }
}
