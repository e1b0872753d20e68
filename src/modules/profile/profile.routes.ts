import { ERROR_ISSUES_BODY } from '../../operations/error-shapes';
import { CHAIN_UNAVAILABLE } from '../../errors';
import { APP_NOT_FOUND } from '../apps/apps.service';
import type { RestRoute } from '../../operations/routes';
import { ProfileResolver } from './profile.resolver';

/** Validation: Shape C (`path` an array of strings); an unknown app: 404 `{status:'failed', error:'App not found', app_id, chain}`. */
export const profileRoutes: RestRoute<ProfileResolver>[] = [
  {
    method: 'get',
    path: '/profile',
    operation: ProfileResolver.prototype.profile,
    errors: ERROR_ISSUES_BODY,
    failures: [APP_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'none',
  },
];
