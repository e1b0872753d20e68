/** The kinds of values Laurel's environment variables take, and the error of a bad one. */
import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The issues of a failed parse, each as `<path>: <message>`. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .map((issue) => `${prefix}${issue.path.join('.') || '(value)'}: ${issue.message}`)
    .join('; ');
}

/** What the variables of `shape` are once parsed. */
export type Parsed<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL');

/** A comma-separated list: its items trimmed, empty ones dropped. */
export const commaSeparated = () =>
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );
