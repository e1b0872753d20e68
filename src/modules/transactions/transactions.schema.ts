import type { Transaction } from 'ethers';
import { z } from 'zod';
import { parseSignedTransaction } from '../../chain/signed-transactions';
import { addressSchema, chainSchema, pagingFields } from '../../validation';

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

/** The page size of the transaction listing when none is asked for. */
export const DEFAULT_TRANSACTIONS_PAGE_SIZE = 20;

/** GET /transactions?chain&status&sender&page&page_size, query transactions. */
export const listTransactionsSchema = z.object({
  chain: chainSchema.optional().describe('Only the transactions sent on this chain'),
  status: z
    .enum(['pending', 'success', 'failed', 'dropped'])
    .optional()
    .describe('Only the transactions Laurel has recorded with this status'),
  sender: addressSchema.optional().describe('Only the transactions this wallet signed'),
  ...pagingFields(DEFAULT_TRANSACTIONS_PAGE_SIZE),
});
export type ListTransactionsInput = z.output<typeof listTransactionsSchema>;
