/**
 * Following a transaction sent through Laurel: GET /v1/transactions/{hash} until it is settled (mined
 * or dropped), a condition of the caller's, or a deadline. Polled with backoff (250 ms doubling to
 * 4 s): Laurel's other way to wait, the `transactionStatus` subscription, needs a WebSocket, which
 * Node 20 lacks; a poll works everywhere and its few requests count against the wallet's budget like
 * any others (a 429 is waited out by the transport).
 */
import type { components } from './generated/openapi.js';
import type { Laurel } from './laurel.js';

/** A transaction as Laurel has it now: `pending`, `success`, `failed` (reverted) or `dropped`. */
export type TransactionState = components['schemas']['TransactionState'];

export interface FollowOptions {
  /** Until when to follow (default: settled, i.e. any status but `pending`). */
  until?: (state: TransactionState) => boolean;
  /** The longest follow, in ms (default 120 000): then a FollowTimeoutError. */
  timeoutMs?: number;
  /** Stops following (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /** The chain's name (default: the chain the caller last sent this hash on). */
  chain?: string;
  /** Called with each state that differs from the last one seen (status, block or rebroadcasts). */
  onChange?: (state: TransactionState) => void;
}

export const FOLLOW_DEFAULT_TIMEOUT_MS = 120_000;
const FIRST_POLL_MS = 250;
const LONGEST_POLL_MS = 4_000;

/** Mined (success or reverted) or dropped: nothing will change any more but confirmations. */
export const isSettled = (state: TransactionState): boolean => state.status !== 'pending';

/** The deadline passed before the transaction got where it was followed to. */
export class FollowTimeoutError extends Error {
  override readonly name = 'FollowTimeoutError';
  constructor(
    readonly hash: string,
    /** The last state seen (undefined when none came). */
    readonly last: TransactionState | undefined,
    timeoutMs: number,
  ) {
    super(
      `Transaction ${hash} is still ${last?.status ?? 'unknown'} after ${timeoutMs} ms of following it: ` +
        `follow it longer (GET /v1/transactions/${hash}, or \`laurel follow ${hash}\`); do not send it again ` +
        `(Laurel keeps following it and sends it again itself if the node lost it).`,
    );
  }
}

const changed = (a: TransactionState | undefined, b: TransactionState) =>
  !a || a.status !== b.status || a.blockNumber !== b.blockNumber || a.rebroadcasts !== b.rebroadcasts;

/** Resolves after `ms`, or early when the signal aborts (the caller checks it). */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Follows `hash` until `until` holds (default: settled) and resolves to that state. Rejects with a
 * LaurelError when Laurel refuses the read (404: not the caller's wallet's transaction), a
 * FollowTimeoutError after `timeoutMs`, or the signal's reason.
 *
 *   const state = await followTransaction(laurel, hash, { timeoutMs: 60_000 });
 *   if (state.status === 'success') console.log(state.receipt?.blockNumber);
 */
export async function followTransaction(
  laurel: Laurel,
  hash: string,
  options: FollowOptions = {},
): Promise<TransactionState> {
  const { until = isSettled, timeoutMs = FOLLOW_DEFAULT_TIMEOUT_MS, chain, onChange } = options;
  const deadline = AbortSignal.timeout(timeoutMs);
  const stop = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let last: TransactionState | undefined;
  for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, LONGEST_POLL_MS)) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) throw new FollowTimeoutError(hash, last, timeoutMs);
    const state = await laurel
      .call(
        laurel.api.GET('/v1/transactions/{hash}', {
          params: { path: { hash }, query: chain ? { chain } : {} },
          signal: stop,
        }),
      )
      .catch((error: unknown) => {
        if (stop.aborted) return undefined; // the deadline or the caller: said below
        throw error;
      });
    if (state) {
      if (changed(last, state)) onChange?.(state);
      last = state;
      if (until(state)) return state;
    }
    await pause(pollMs, stop);
  }
}
