import type { Request, RequestHandler, Response } from 'express';
import type { AuthenticatedAccount } from '../context';
import { AppError, UnauthenticatedError } from '../errors';
import { requestContext } from './rest';

/** What the HTTP layer needs from the accounts module. */
export interface RequestAuthenticator {
  /** Resolves an X-API-KEY value; throws UnauthenticatedError for an unknown or revoked key. */
  authenticate(apiKey: string): Promise<AuthenticatedAccount>;
  /** Counts one request of the key; throws RateLimitedError over the limit. */
  countRequest(account: AuthenticatedAccount): Promise<void>;
}

function apiKeyOf(req: Request): string | undefined {
  const value = req.header('x-api-key');
  return value && value.trim() ? value.trim() : undefined;
}

/**
 * The one authentication path of REST and GraphQL: reads `X-API-KEY`, resolves and counts it, and
 * puts the account on the request context. `required` (REST {base_url}): a missing or invalid key
 * is refused. Otherwise (GraphQL) the request goes on without an account, and operations that
 * need one answer UNAUTHENTICATED; an over-limit key is refused either way.
 */
export function authenticateRequests(
  authenticator: RequestAuthenticator,
  options: { required: boolean; refuse: (res: Response, error: AppError) => void },
): RequestHandler {
  return async (req, res, next) => {
    try {
      const apiKey = apiKeyOf(req);
      if (!apiKey) {
        if (!options.required) return next();
        throw new UnauthenticatedError('Missing API key: send it in the X-API-KEY header');
      }
      const account = await authenticator.authenticate(apiKey);
      await authenticator.countRequest(account);
      requestContext(res).account = account;
      next();
    } catch (error) {
      if (!(error instanceof AppError)) return next(error);
      if (!options.required && error instanceof UnauthenticatedError) return next();
      options.refuse(res, error);
    }
  };
}
