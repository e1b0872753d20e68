import { ERROR_FIELD_BODY, ERROR_ISSUES_BODY, STATUS_FAILED_BODY } from '../../operations/error-shapes';
import { API_KEY_NOT_FOUND, SIGNATURE_REJECTED, TOO_MANY_API_KEYS } from './auth.service';
import { KEY_REQUEST_BUDGET_SPENT } from './request-budgets';
import type { RestRoute } from '../../operations/routes';
import { AuthResolver } from './auth.resolver';

/** The unversioned {auth_url} routes: no API key needed. */
export const authRootRoutes: RestRoute<AuthResolver>[] = [
  {
    method: 'post',
    path: '/key/challenge',
    operation: AuthResolver.prototype.requestApiKeyChallenge,
    errors: ERROR_ISSUES_BODY,
    failures: [KEY_REQUEST_BUDGET_SPENT],
    envelope: 'status',
  },
  {
    method: 'post',
    path: '/key/verify',
    operation: AuthResolver.prototype.verifyApiKeyChallenge,
    errors: ERROR_FIELD_BODY,
    failures: [SIGNATURE_REJECTED, TOO_MANY_API_KEYS, KEY_REQUEST_BUDGET_SPENT],
    envelope: 'none',
  },
];

/** The account's key management under {base_url}. */
export const authApiRoutes: RestRoute<AuthResolver>[] = [
  {
    method: 'get',
    path: '/keys',
    operation: AuthResolver.prototype.apiKeys,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    resultField: 'keys',
  },
  {
    method: 'delete',
    path: '/keys/:id',
    operation: AuthResolver.prototype.revokeApiKey,
    errors: STATUS_FAILED_BODY,
    failures: [API_KEY_NOT_FOUND],
    envelope: 'status',
    resultField: 'key',
  },
];
