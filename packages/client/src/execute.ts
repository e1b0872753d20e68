/**
 * Sending a signed transaction through Laurel: POST /v1/transactions/execute, or execute-and-wait
 * for the receipt.
 */
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

/** Sends `signedTransaction`; with `wait`, waits for its receipt (execute-and-wait). */
export function executeSigned(
  laurel: Laurel,
  input: ExecuteInput,
  options: { wait: true },
): Promise<ExecutedAndWaited>;
export function executeSigned(
  laurel: Laurel,
  input: ExecuteInput,
  options?: { wait?: false },
): Promise<Executed>;
export function executeSigned(
  laurel: Laurel,
  input: ExecuteInput,
  options: { wait?: boolean } = {},
): Promise<Executed | ExecutedAndWaited> {
  const body = { chain: input.chain, signed_transaction: input.signedTransaction };
  return options.wait
    ? laurel.call(laurel.api.POST('/v1/transactions/execute-and-wait', { body }))
    : laurel.call(laurel.api.POST('/v1/transactions/execute', { body }));
}
