import type { Transaction } from 'ethers';
import { z } from 'zod';
import { parseSignedTransaction } from '../../chain/signed-transactions';
import { chainSchema } from '../../validation';

const hexBytes = /^0x(?:[0-9a-fA-F]{2})+$/;

/** Why a string is not a signed transaction, or null when it is one. */
export function signedTransactionProblem(value: string): string | null {
  let transaction: Transaction;
  try {
    transaction = parseSignedTransaction(value);
  } catch (error) {
    const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
    return `Invalid signed transaction: ${reason.split(' (')[0]}`;
  }
  if (!transaction.signature || !transaction.from) return 'The transaction is not signed';
  return null;
}

/** POST /transactions/execute and /transactions/execute-and-wait (Shape C). */
export const executeTransactionSchema = z.object({
  chain: chainSchema
    .optional()
    .describe(
      'Chain name; when absent, the chain whose chain id the signed transaction names (they must agree)',
    ),
  signed_transaction: z
    .string()
    .regex(hexBytes, 'Invalid signed transaction: expected 0x-prefixed hex bytes')
    .superRefine((value, ctx) => {
      if (!hexBytes.test(value)) return; // already reported by the regex
      const problem = signedTransactionProblem(value);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    })
    .describe('The signed transaction, 0x-prefixed hex (as eth_sendRawTransaction takes it)'),
});
export type ExecuteTransactionInput = z.output<typeof executeTransactionSchema>;

/** GET /transactions/:hash (and ?chain), query transactionStatus. */
export const transactionStatusSchema = z.object({
  hash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'Invalid: expected a transaction hash, 0x + 64 hex digits')
    .transform((hash) => hash.toLowerCase())
    .describe('The transaction’s hash (transactionHash of an execute answer)')
    .openapi({ example: `0x${'ab'.repeat(32)}` }),
  chain: chainSchema
    .optional()
    .describe('Chain name; when absent, the chain the caller last sent a transaction with this hash on'),
});
export type TransactionStatusInput = z.output<typeof transactionStatusSchema>;

/** DELETE /transactions/reservations?chain=, mutation releaseNonceReservations. */
export const releaseReservationsSchema = z.object({
  chain: chainSchema,
});
export type ReleaseReservationsInput = z.output<typeof releaseReservationsSchema>;
