import { getAddress } from 'ethers';
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors';

/** The interface's Address: `^(0x)?[0-9a-fA-F]{40}$`, normalised to a 0x-prefixed checksummed address. */
export const addressSchema = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{40}$/, 'Invalid address')
  .transform((value) => getAddress(`0x${value.replace(/^0x/, '').toLowerCase()}`));

export const chainSchema = z.string().min(1).max(255);

/** The interface's amounts of credit, rewards, approvals and permits: formatted units, > 0. */
export const positiveAmountSchema = z.number().positive();

/** Query parameters documented as `^\d+$` strings (page, page_size, start, end). */
export const digitsSchema = z.string().regex(/^\d+$/);

/** Parses with zod and turns a failure into a ValidationError carrying zod's own issues. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(result.error.issues as ValidationIssue[]);
  return result.data;
}
