/**
 * The one error family of Laurel. Services throw these; the REST layer renders them in each
 * endpoint's documented shape (src/operations/error-shapes.ts) and GraphQL as `extensions.code`.
 */

/** One validation issue, as zod v3 reports it (`code`, `path`, `message`, plus code-specific fields). */
export interface ValidationIssue {
  code: string;
  path: (string | number)[];
  message: string;
  [extra: string]: unknown;
}

/**
 * A failure as the API reference lists it, declared beside the error that produces it: the HTTP
 * status it answers, the codes it carries (Shape B's `error.code`; GraphQL's `extensions.code` in
 * capitals) and when it happens. REST routes name the ones they can answer (src/operations/routes.ts).
 */
export interface DocumentedFailure {
  readonly status: number;
  readonly codes: readonly string[];
  readonly description: string;
}

export class AppError extends Error {
  /** Response headers that go with this error over HTTP (e.g. `Retry-After`). */
  readonly headers: Record<string, string> = {};

  constructor(
    /** Stable machine-readable code, e.g. `token_not_found`. */
    readonly code: string,
    message: string,
    readonly httpStatus: number,
    /** Extra documented fields (e.g. `badges`, `transaction_error`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super('validation_error', summarizeIssues(issues), 400);
  }

  /** A validation error on one field, for rules checked after parsing (unknown chain, ...). */
  static field(field: string, message: string, code = 'custom'): ValidationError {
    return new ValidationError([{ code, path: [field], message }]);
  }
}

export function summarizeIssues(issues: ValidationIssue[]): string {
  return issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

export class NotFoundError extends AppError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(code, message, 404, details);
  }
}

/** What a defined failure's error is built from: its code first when the failure has several. */
export type FailureArguments<Codes extends readonly string[]> = Codes extends readonly [string]
  ? [message: string, details?: Record<string, unknown>]
  : [code: Codes[number], message: string, details?: Record<string, unknown>];

/** A documented failure together with the error class that answers it. */
export interface DefinedFailure<Codes extends readonly [string, ...string[]]> extends DocumentedFailure {
  readonly codes: Codes;
  /**
   * The failure's error: its status is the entry's and its code one of the entry's, so the two
   * cannot disagree. A subclass gives it its name and any fields or arguments of its own.
   */
  readonly Error: new (...args: FailureArguments<Codes>) => AppError;
}

/**
 * Declares a failure once: the entry routes list (status, codes, description) and the error class
 * services throw, taken from it. A 404 failure's error is a NotFoundError (a live query ends on it).
 */
export function defineFailure<const Codes extends readonly [string, ...string[]]>(
  failure: DocumentedFailure & { readonly codes: Codes },
): DefinedFailure<Codes> {
  const { status, codes } = failure;
  const Parent: new (code: string, message: string, details?: Record<string, unknown>) => AppError =
    status === 404
      ? NotFoundError
      : class extends AppError {
          constructor(code: string, message: string, details?: Record<string, unknown>) {
            super(code, message, status, details);
          }
        };
  class FailureError extends Parent {
    constructor(...args: FailureArguments<Codes>) {
      const [code, message, details] = (codes.length === 1 ? [codes[0], ...args] : args) as [
        string,
        string,
        Record<string, unknown>?,
      ];
      super(code, message, details);
    }
  }
  return { ...failure, Error: FailureError };
}

/** The documented 401 of a key Laurel cannot read or does not know. */
export const INVALID_API_KEY = 'Invalid API key';

export class UnauthenticatedError extends AppError {
  constructor(message = INVALID_API_KEY) {
    super('unauthenticated', message, 401);
  }
}

/** Which request budget refused a request (a metric label). */
export type RequestBudget =
  | 'wallet'
  | 'key_requests_per_client'
  | 'challenges_per_wallet'
  | 'anonymous_graphql_per_client'
  | 'webhook_tests_per_account';

export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly budget: RequestBudget,
  ) {
    super('rate_limited', 'Too many requests', 429, { retry_after: retryAfterSeconds });
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export const CHAIN_UNAVAILABLE = defineFailure({
  status: 503,
  codes: ['chain_unavailable'],
  description: 'The chain’s node does not answer in time (the body names the chain); retry later',
});

/** A chain's RPC node is down or too slow: the request may succeed later. */
export class ChainUnavailableError extends CHAIN_UNAVAILABLE.Error {
  constructor(
    chain: string,
    /** Why, without the chain's name: `no answer within 10000 ms`. */
    readonly reason: string,
    /**
     * The request may have reached the node (a timeout, a reset connection, a 5xx) as opposed to
     * a connection that was refused: a transaction being sent may have been accepted.
     */
    readonly mayHaveArrived = false,
    details: Record<string, unknown> = {},
  ) {
    super(`Chain "${chain}" is unavailable: ${reason}`, { chain, ...details });
  }
}

export const DATABASE_UNAVAILABLE = defineFailure({
  status: 503,
  codes: ['database_unavailable'],
  description:
    '`Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)',
});

/** What a stopping process answers a request it did not take (src/server/http-ports.ts). */
export const SHUTTING_DOWN_MESSAGE = 'Laurel is shutting down';

export const SHUTTING_DOWN = defineFailure({
  status: 503,
  codes: ['shutting_down'],
  description:
    '`Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)',
});

/** The process is stopping: the request was not taken, and may be sent again. */
export class ShuttingDownError extends SHUTTING_DOWN.Error {
  constructor() {
    super(SHUTTING_DOWN_MESSAGE);
    this.headers['Retry-After'] = '1';
  }
}

/** The database cannot be reached (down, restarting, connection lost): the request may succeed later. */
export class DatabaseUnavailableError extends DATABASE_UNAVAILABLE.Error {
  constructor() {
    super('Database unavailable');
    // Nothing was done: a client may send the request again (the same Idempotency-Key is safe).
    this.headers['Retry-After'] = '1';
  }
}
