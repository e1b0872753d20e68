/**
 * Sending a signed transaction through Laurel: POST /v1/transactions/execute, or execute-and-wait
 * for the receipt, recovering from the answers Laurel documents (README.md#recovery):
 * - 503 with a `transactionHash` (the node may have taken it): never sent again; followed instead
 *   (GET /v1/transactions/{hash}) until mined, dropped or the deadline;
 * - 409 `nonce_gap` whose missing nonces Laurel is sending again (`rebroadcasting`): those are
 *   followed until mined, then this transaction is sent again, for at most `nonceGapRounds` rounds.
 *   A gap with a nonce that was never sent is the caller's to fill: the LaurelError is thrown.
 * 429 and the other "ask again" answers are waited out by the transport (retry.ts).
 */
import { LaurelError } from './errors.js';
import { followTransaction, type TransactionState } from './follow.js';
import type { Laurel, LaurelPaths } from './laurel.js';

type Json<P extends keyof LaurelPaths, M extends 'post'> = LaurelPaths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** What execute answers: the hash, and whether Laurel sent it. */
export type Executed = Json<'/v1/transactions/execute', 'post'>;
/** What execute-and-wait answers: the receipt, or `{status:'failed', error:'Timeout', …}`. */
export type ExecutedAndWaited = Json<'/v1/transactions/execute-and-wait', 'post'>;

export interface ExecuteInput {
  chain: string;
  /** The signed transaction, 0x-prefixed hex. */
  signedTransaction: string;
}

export interface RecoveryOptions {
  /** How long a transaction is followed (a 503 with its hash, or a nonce Laurel sends again), in ms (default 120 000). */
  followTimeoutMs?: number;
  /** Times this transaction is sent again after the nonces Laurel was sending again were mined (default 3). */
  nonceGapRounds?: number;
  /** Stops following (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

export const NONCE_GAP_DEFAULT_ROUNDS = 3;

/** A missing nonce Laurel sent, the chain dropped, and Laurel sends again. */
interface Rebroadcasting {
  nonce: number;
  transactionHash: string;
}

/** The hashes to wait for when every missing nonce of a `nonce_gap` is one Laurel sends again; else undefined. */
function rebroadcastsToWaitFor(error: LaurelError): string[] | undefined {
  if (error.status !== 409 || error.code !== 'nonce_gap') return undefined;
  const body = error.body as { missing_nonces?: unknown; rebroadcasting?: unknown };
  const missing = Array.isArray(body.missing_nonces) ? (body.missing_nonces as number[]) : [];
  const resent = Array.isArray(body.rebroadcasting) ? (body.rebroadcasting as Rebroadcasting[]) : [];
  if (resent.length === 0 || !missing.every((nonce) => resent.some((held) => held.nonce === nonce)))
    return undefined;
  return resent.map((held) => held.transactionHash);
}

/** The hash of a 503 whose transaction may have reached the node. */
function ambiguousHash(error: unknown): string | undefined {
  if (!(error instanceof LaurelError) || error.status !== 503) return undefined;
  const hash = (error.body as { transactionHash?: unknown } | null)?.transactionHash;
  return typeof hash === 'string' ? hash : undefined;
}

/** What execute or execute-and-wait would have answered, from the followed state. */
function answerOf(
  state: TransactionState,
  wait: boolean,
  ambiguous: LaurelError,
): Executed | ExecutedAndWaited {
  const { transactionHash, blockExplorerUrl } = state;
  if (state.status === 'dropped') {
    throw new LaurelError(
      ambiguous.status,
      ambiguous.body,
      ambiguous.request,
      `${ambiguous.message}; Laurel followed ${transactionHash} and it was dropped: ${state.error ?? 'no reason given'}. ` +
        'Build and sign it again.',
    );
  }
  if (!wait) return { status: 'success', transactionHash, blockExplorerUrl };
  return {
    status: state.status,
    transactionHash,
    blockExplorerUrl,
    receipt: state.receipt ?? null,
    ...(state.error ? { error: state.error } : {}),
    ...(state.status === 'success' ? { created: state.created ?? null } : {}),
  };
}

/**
 * Sends `signedTransaction`; with `wait`, waits for its receipt (execute-and-wait). Recovers from a
 * 503 with a hash and a `nonce_gap` Laurel is filling itself (see above); any other refusal is a
 * LaurelError (`code === 'nonce_gap'` with nonces never sent: build, sign and send again).
 */
export function executeSigned(
  laurel: Laurel,
  input: ExecuteInput,
  options: { wait: true } & RecoveryOptions,
): Promise<ExecutedAndWaited>;
export function executeSigned(
  laurel: Laurel,
  input: ExecuteInput,
  options?: { wait?: false } & RecoveryOptions,
): Promise<Executed>;
export async function executeSigned(
  laurel: Laurel,
  input: ExecuteInput,
  options: { wait?: boolean } & RecoveryOptions = {},
): Promise<Executed | ExecutedAndWaited> {
  const { wait = false, nonceGapRounds = NONCE_GAP_DEFAULT_ROUNDS, followTimeoutMs, signal } = options;
  const follow = { chain: input.chain, timeoutMs: followTimeoutMs, signal };
  const body = { chain: input.chain, signed_transaction: input.signedTransaction };
  for (let round = 0; ; round++) {
    try {
      return await (wait
        ? laurel.call(laurel.api.POST('/v1/transactions/execute-and-wait', { body }))
        : laurel.call(laurel.api.POST('/v1/transactions/execute', { body })));
    } catch (error) {
      const hash = ambiguousHash(error);
      if (hash) {
        // The node may have it: sending again could only repeat it; Laurel follows it, and so do we.
        const state = await followTransaction(laurel, hash, follow);
        return answerOf(state, wait, error as LaurelError);
      }
      const resent = error instanceof LaurelError ? rebroadcastsToWaitFor(error) : undefined;
      if (!resent || round >= nonceGapRounds) throw error;
      await Promise.all(resent.map((resentHash) => followTransaction(laurel, resentHash, follow)));
    }
  }
}
