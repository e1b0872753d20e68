/** The kinds of values Laurel's environment variables take, and the error of a bad one. */
import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A value's place in what was parsed: `PORT`, `[0].rpcUrls[1]`; `(value)` for the whole of it. */
function placeOf(path: (string | number)[]): string {
  const place = path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index ? `.${key}` : key));
  return place.join('') || '(value)';
}

/** The issues of a failed parse, each as `<place>: <message>`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${placeOf(issue.path)}: ${issue.message}`).join('; ');
}

/** What the variables of `shape` are once parsed. */
export type Parsed<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
export const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
  .refine((url) => URL.canParse(url), 'not a valid URL (a password with @, / or # must be percent-encoded)');

/** A comma-separated list: its items trimmed, empty ones dropped. */
export const commaSeparated = () =>
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );
