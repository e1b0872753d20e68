/** What the client throws: a refusal by Laurel, or a transaction that does not match the request. */

/** A Laurel answer other than success: its status and documented body, with the message found in it. */
export class LaurelError extends Error {
  override readonly name = 'LaurelError';
  constructor(
    /** HTTP status (0 when no answer came: the request did not reach Laurel). */
    readonly status: number,
    /** The answer's JSON body as sent (one of the interface's failure shapes), or its text. */
    readonly body: unknown,
    /** `METHOD path` of the request. */
    readonly request: string,
    message = `${request} answered ${status}: ${messageOf(body) ?? 'no message'}`,
  ) {
    super(message);
  }

  /** The failure's code or reason when the body names one (`nonce_gap`, `rate_limited`, `validation_error`…). */
  get code(): string | undefined {
    return codeOf(this.body);
  }
}

/** The code or reason a failure body names: Shape A's `reason`, Shape B's `error.code`, or `code`. */
export function codeOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { reason, error, code } = body as { reason?: unknown; error?: unknown; code?: unknown };
  if (typeof reason === 'string') return reason;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string')
    return (error as { code: string }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The message of any of the interface's failure shapes: Shape A `{status:'failed', error}`, Shape B
 * `{success:false, error:{code, message}}`, Shape C `{error:{issues:[…]}}`, `{error}`.
 */
export function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const { message, issues } = error as { message?: unknown; issues?: unknown };
    if (typeof message === 'string') return message;
    if (Array.isArray(issues) && issues.length > 0) {
      return issues
        .map((issue: { path?: unknown; message?: unknown }) =>
          [Array.isArray(issue.path) ? issue.path.join('.') : issue.path, issue.message]
            .filter(Boolean)
            .join(': '),
        )
        .join('; ');
    }
  }
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}
