import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { checksumAddress } from './addresses';
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors';

// Every schema gets `.openapi({ example, … })`: the OpenAPI document is generated from them.
extendZodWithOpenApi(z);

/**
 * The interface's Address: `^(0x)?[0-9a-fA-F]{40}$`, normalised to a 0x-prefixed checksummed
 * address. No example of its own: each field gives one that works as sent, or none (an optional
 * address left out is a default, not a guess).
 */
export const addressSchema = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{40}$/, 'Invalid address')
  .transform((value) => checksumAddress(`0x${value.replace(/^0x/, '').toLowerCase()}`));

/**
 * A chain's name (1..255). The API reference's `Chain` component: the document a Laurel serves
 * lists the chains it serves (an unknown one is refused, see ChainRegistry.get).
 */
export const chainSchema = z
  .string()
  .min(1)
  .max(255)
  .describe('A chain this service serves, by name (e.g. `local`)')
  .openapi('Chain', { example: 'local' });

/**
 * A `^\d+$` string: REST's documented digits parameters. Its own class so that GraphQL can take
 * the number itself (`Int`, see src/operations/graphql-args.ts) while REST keeps the string.
 */
export class ZodDigits extends z.ZodString {}

/**
 * A parameter documented as a `^\d+$` string (page, page_size, start, end, ids), or a narrower
 * `pattern` of digits where the value has bounds (the API reference shows the pattern, so it states
 * them). Its message keeps zod's documented `Invalid` and says what was expected, e.g. `Invalid:
 * expected seconds since the epoch in digits only, e.g. 1767225600`. Over GraphQL it is an `Int`
 * (ids may override that).
 */
export function digitsSchema(expected: string, example: string, pattern = /^\d+$/): ZodDigits {
  const digits = z.string().regex(pattern, `Invalid: expected ${expected} in digits only, e.g. ${example}`);
  return new ZodDigits(digits._def);
}

/**
 * The deepest page of every paged listing (leaderboard, webhook logs): each page skips the rows of
 * those before it, so a deeper one would make the database walk more rows than anyone pages
 * through. The API reference states it (the pattern); past it is a 400 like any other pattern.
 */
export const MAX_PAGE_NUMBER = 10_000;
/** The largest page of every paged listing. */
export const MAX_PAGE_SIZE = 100;

/** Digits of a number from 1 to `max` (a power of ten), leading zeros read as Number() reads them. */
export function digitsFromOneTo(max: number): RegExp {
  const zeros = Math.log10(max);
  if (!Number.isInteger(zeros) || zeros < 1) throw new Error(`${max} is not a power of ten above 1`);
  return new RegExp(`^0*(?:[1-9]\\d{0,${zeros - 1}}|1${'0'.repeat(zeros)})$`);
}

/** 1 to MAX_PAGE_NUMBER in digits. */
export const PAGE_NUMBER_DIGITS = digitsFromOneTo(MAX_PAGE_NUMBER);
/** 1 to MAX_PAGE_SIZE in digits. */
export const PAGE_SIZE_DIGITS = digitsFromOneTo(MAX_PAGE_SIZE);

/** The `page` and `page_size` parameters of a paged listing (both optional). */
export function pagingFields(defaultPageSize: number) {
  return {
    page: digitsSchema(`a page number from 1 to ${MAX_PAGE_NUMBER}`, '2', PAGE_NUMBER_DIGITS)
      .optional()
      .describe(`Page number, 1..${MAX_PAGE_NUMBER} (default 1)`),
    page_size: digitsSchema(
      `a number of entries from 1 to ${MAX_PAGE_SIZE}`,
      String(defaultPageSize),
      PAGE_SIZE_DIGITS,
    )
      .optional()
      .describe(`Entries per page, 1..${MAX_PAGE_SIZE} (default ${defaultPageSize})`),
  };
}

/** A page asked for through pagingFields, as numbers (the defaults when left out), and its offset. */
export function pageOf(
  input: { page?: string; page_size?: string },
  defaultPageSize: number,
): { page: number; pageSize: number; offset: number } {
  const page = input.page === undefined ? 1 : Number(input.page);
  const pageSize = input.page_size === undefined ? defaultPageSize : Number(input.page_size);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/**
 * A decimal amount as GraphQL's `Decimal` scalar parses it: the exact text the client sent. Only
 * GraphQL produces these (a JSON body cannot), so REST keeps the interface's JSON numbers.
 */
export class DecimalInput {
  constructor(readonly text: string) {}
}

/** An amount in formatted units: a JSON number (REST) or an exact decimal string (GraphQL). */
export type Amount = number | string;

interface ZodAmountDef extends z.ZodTypeDef {
  number: z.ZodNumber;
  allowZero: boolean;
  // To generators that read zod definitions (zod-to-openapi), an amount presents itself as a
  // refinement of its JSON number: what REST clients send.
  typeName: z.ZodFirstPartyTypeKind.ZodEffects;
  schema: z.ZodNumber;
  effect: { type: 'refinement' };
}

const DECIMAL_TEXT = /^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * An amount: numbers are validated exactly as `z.number().positive()` (or `.min(0)`) would, so REST
 * error bodies are zod's own; a GraphQL `Decimal` passes through as its exact text.
 */
export class ZodAmount extends z.ZodType<Amount, ZodAmountDef, unknown> {
  _parse(input: z.ParseInput): z.ParseReturnType<Amount> {
    if (!(input.data instanceof DecimalInput)) return this._def.number._parse(input);
    const text = input.data.text;
    if (this._def.allowZero || /[1-9]/.test(text.split('e')[0])) return z.OK(text);
    z.addIssueToContext(this._getOrReturnCtx(input), {
      code: z.ZodIssueCode.too_small,
      minimum: 0,
      inclusive: false,
      exact: false,
      type: 'number',
    });
    return z.INVALID;
  }

  static create(options: { allowZero: boolean }): ZodAmount {
    const number = options.allowZero ? z.number().min(0) : z.number().positive();
    return new ZodAmount({
      number,
      allowZero: options.allowZero,
      typeName: z.ZodFirstPartyTypeKind.ZodEffects,
      schema: number,
      effect: { type: 'refinement' },
    });
  }
}

/** Whether `text` is a non-negative decimal, `1.5` or `15e-1` (what the `Decimal` scalar accepts). */
export function isDecimalText(text: string): boolean {
  return DECIMAL_TEXT.test(text);
}

/** The interface's amounts of credit, rewards, approvals and permits: formatted units, > 0. */
export const positiveAmountSchema = ZodAmount.create({ allowZero: false }).openapi({ example: 1.5 });

/** Amounts that may be 0 (a new token's initial supply). */
export const nonNegativeAmountSchema = ZodAmount.create({ allowZero: true }).openapi({ example: 1000 });

/**
 * An object of which exactly one of two optional fields must be given (`badge_name` or `badge_id`):
 * refused in zod's words otherwise, and stated in the API reference as `oneOf` the two.
 */
export function exactlyOneOf<T extends z.AnyZodObject>(object: T, fields: [string, string]) {
  return object.openapi(exactlyOneOfOpenApi(fields)).superRefine(exactlyOneOfRule(fields));
}

/** The OpenAPI half of exactlyOneOf, for an object refined elsewhere (e.g. a member of a union). */
export function exactlyOneOfOpenApi([first, second]: [string, string]) {
  return { oneOf: [{ required: [first] }, { required: [second] }] };
}

/** The rule of exactlyOneOf, for an object refined elsewhere (e.g. a member of a union). */
export function exactlyOneOfRule([first, second]: [string, string]) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const given = [first, second].filter((field) => value[field] !== undefined);
    if (given.length === 1) return;
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: [given.length === 0 ? first : second],
      message: given.length === 0 ? `Give ${first} or ${second}` : `Give ${first} or ${second}, not both`,
    });
  };
}

/** A UTF-16 surrogate without its other half: what a JSON `\ud800` escape makes, and no UTF-8 holds. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Where in `value` (its strings, and the keys and items of its plain objects and arrays) a lone surrogate is. */
function loneSurrogatePath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = loneSurrogatePath(item, [...path, index]);
      if (found) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const prototype = Object.getPrototypeOf(value) as unknown;
  // GraphQL's argument objects have no prototype; values such as bigints and dates hold no text.
  if (prototype !== Object.prototype && prototype !== null) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = LONE_SURROGATE.test(key) ? [...path, key] : loneSurrogatePath(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * Parses with zod and turns a failure into a ValidationError carrying zod's own issues. Text that
 * is not well-formed Unicode is refused too, as a custom issue on its field: every string a
 * contract call, the database or a webhook receives must be writable as UTF-8.
 */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(result.error.issues as ValidationIssue[]);
  const illFormed = loneSurrogatePath(result.data);
  if (illFormed) {
    throw new ValidationError([
      {
        code: 'custom',
        path: illFormed,
        message: 'Invalid: not well-formed Unicode text (a lone UTF-16 surrogate)',
      },
    ]);
  }
  return result.data;
}
