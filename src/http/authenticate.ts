import type { Request, RequestHandler, Response } from 'express';
import { isDatabaseUnavailable } from '../db/availability';
import {
  AppError,
  DatabaseUnavailableError,
  INVALID_API_KEY,
  UnauthenticatedError,
  type DocumentedFailure,
} from '../errors';
import { WALLET_BUDGET_SPENT } from '../modules/auth/request-budgets';
import { withKeyHelp } from '../operations/key-help';
import type { RequestAuthenticator } from '../operations/request-context';
import { requestContext } from './rest';

export const API_KEY_REFUSED: DocumentedFailure = {
  status: 401,
  codes: ['unauthenticated'],
  description:
    '`Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY',
};

/**
 * What the key check of a {base_url} request answers, in Shape A, before any operation runs (and
 * 503 `Database unavailable` when the key cannot be checked).
 */
export const KEY_CHECK_FAILURES: readonly DocumentedFailure[] = [API_KEY_REFUSED, WALLET_BUDGET_SPENT];

function apiKeyOf(req: Request): string | undefined {
  const value = req.header('x-api-key');
  return value && value.trim() ? value.trim() : undefined;
}

/**
 * The one authentication path of REST and GraphQL: reads `X-API-KEY`, resolves and counts it, and
 * puts the account on the request context. `required` (REST {base_url}): a missing or invalid key
 * is refused, and the request costs one of the wallet's budget. Otherwise (GraphQL) a request
 * without a valid key goes on without an account, at the cost of one of its client address's
 * anonymous requests (refused over that budget), and operations that need an account answer
 * UNAUTHENTICATED; with a key, GraphQL spends the wallet's budget per root field once the
 * operation is parsed (requestCostPlugin, src/graphql/limits.ts).
 */
export function authenticateRequests(
  authenticator: RequestAuthenticator,
  options: { required: boolean; refuse: (res: Response, error: AppError) => void },
): RequestHandler {
  const anonymous = (res: Response) => authenticator.countAnonymousRequest(requestContext(res).clientAddress);
  return async (req, res, next) => {
    try {
      const sentAuthorization = req.headers.authorization !== undefined;
      if (sentAuthorization) requestContext(res).sentAuthorization = true;
      const apiKey = apiKeyOf(req);
      if (!apiKey) {
        if (!options.required) {
          await anonymous(res);
          return next();
        }
        throw new UnauthenticatedError(
          withKeyHelp('Missing API key: send it in the X-API-KEY header', sentAuthorization),
        );
      }
      const account = await authenticator.authenticate(apiKey).catch(async (error: unknown) => {
        // An unreadable or unknown key also says how to get one (a revoked or expired key's holder knows).
        if (options.required && error instanceof UnauthenticatedError && error.message === INVALID_API_KEY)
          throw new UnauthenticatedError(withKeyHelp(INVALID_API_KEY, sentAuthorization));
        if (options.required || !(error instanceof UnauthenticatedError)) throw error;
        requestContext(res).keyRefusal = error.message;
        await anonymous(res);
        return null;
      });
      if (account && options.required) await authenticator.countRequest(account);
      if (account) requestContext(res).account = account;
      next();
    } catch (caught) {
      // A key cannot be checked while the database is gone: 503, in the caller's own shape.
      const error =
        !(caught instanceof AppError) && isDatabaseUnavailable(caught)
          ? new DatabaseUnavailableError()
          : caught;
      if (!(error instanceof AppError)) return next(error);
      options.refuse(res, error);
    }
  };
}
