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
 *
 * This file is the pool's face: batches, broadcasting, eth_getLogs and /ready's check. One call over
 * the providers (rounds, hedging, the deadline) is rpc-failover.ts; the choice of a provider
 * provider-selection.ts; backoff, heads and lag provider-health.ts; what a call needs of a provider
 * rpc-requests.ts.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { keccak256 } from 'ethers';
import { ChainUnavailableError } from '../errors';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { logRangeAdvice } from './log-ranges';
import { ProviderStates } from './provider-health';
import { reserve, waitOf } from './provider-selection';
import { RpcEndpoint, type JsonRpcReply, type JsonRpcRequest, type ProviderState } from './rpc-endpoint';
import {
  MAX_ROUNDS,
  NOT_SENT_IN_TIME,
  RpcFailover,
  type Failed,
  type Job,
  type Settled,
} from './rpc-failover';
import { isAlreadyKnown, ProviderFailure, providerFailureOf, RpcAnswerError } from './rpc-failures';
import { combinedNeed, needOf, repliesOf } from './rpc-requests';

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

/** /ready's probe of each provider. */
const PROBE_TIMEOUT_MS = 2_000;
/** After a node refused a transaction, how long another provider's acceptance is awaited. */
const REJECTION_GRACE_MS = 1_000;

const hex = (n: number) => `0x${n.toString(16)}`;

export class RpcPool {
  readonly chain: string;
  readonly endpoints: readonly RpcEndpoint[];
  private readonly timeoutMs: number;
  private readonly log?: Logger;
  private readonly closing = new AbortController();
  private readonly health: ProviderStates;
  private readonly failover: RpcFailover;
  /** Calls per HTTP request at most: the smallest whole per-second budget of a provider. */
  private readonly largestBatch: number;

  constructor(options: RpcPoolOptions) {
    this.chain = options.chain;
    this.timeoutMs = options.timeoutMs;
    this.log = options.log;
    // Every call in flight listens for the pool's closing: as many listeners as calls.
    setMaxListeners(0, this.closing.signal);
    this.endpoints = options.rpcUrls.map(
      (endpoint, index) =>
        new RpcEndpoint(options.chain, index + 1, endpoint.url, endpoint.maxRequestsPerSecond),
    );
    const budgets = this.endpoints.map((endpoint) => Math.floor(endpoint.rate?.perSecond ?? Infinity));
    this.largestBatch = Math.max(1, Math.min(...budgets));
    this.health = new ProviderStates(this.chain, this.endpoints, options.maxLagBlocks, this.log);
    this.failover = new RpcFailover(
      this.chain,
      this.endpoints,
      this.timeoutMs,
      this.health,
      this.closing.signal,
      options.metrics,
    );
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
      ...parts.map((part) => this.callBatch(part, replies, failures)),
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

  private async callBatch(
    requests: readonly JsonRpcRequest[],
    replies: Map<number, JsonRpcReply>,
    failures: Map<number, Error>,
  ): Promise<void> {
    const needs = new Map(requests.map((request) => [request.id, needOf(request)]));
    try {
      await this.failover.run({
        need: combinedNeed([...needs.values()]),
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
              this.health.observeHead(endpoint, Number(reply.result));
            }
          }
          const lagging = this.health.isLagging(endpoint, this.health.bestHead(Date.now()), Date.now());
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

  /** For /ready: each provider asked for its head now (except one that asked to be left alone). */
  async check(): Promise<ProviderHealth[]> {
    const now = Date.now();
    await Promise.all(
      this.endpoints.map((endpoint) =>
        endpoint.blockedUntil > now
          ? undefined
          : this.failover.probe(endpoint, Math.min(this.timeoutMs, PROBE_TIMEOUT_MS)),
      ),
    );
    return this.endpoints.map((endpoint) => ({
      name: endpoint.name,
      ok: endpoint.state === 'ok',
      state: endpoint.state,
    }));
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
        const reply = await this.failover.postOne(endpoint, request, timeoutMs);
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
        if (now + Math.max(backoff, waitOf(endpoint, 1, now)) >= deadline) break;
        if (backoff > 0) await sleep(backoff, undefined, { signal: this.closing.signal });
        settled = await this.failover.attempt(endpoint, job, reserve(endpoint, 1, Date.now()), deadline);
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
            if (left === 0) settle(refusal ?? this.failover.unavailable(failures, job.need, deadline));
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
      const part = await this.failover.run({
        need: { fresh: false, minBlock: filter.toBlock },
        cost: 1,
        kind: 'logs',
        method: 'eth_getLogs',
        attempt: async (endpoint, timeoutMs) => {
          const span = Math.min(endpoint.logSpanLimit, resultSpanLimit, filter.toBlock - start + 1);
          const to = start + span - 1;
          const request = this.failover.request('eth_getLogs', [
            { fromBlock: hex(start), toBlock: hex(to), address: filter.address, topics: filter.topics },
          ]);
          const reply = await this.failover.postOne(endpoint, request, timeoutMs);
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
