import { STATUS_FAILED_BODY } from '../../operations/error-shapes';
import { TRANSACTION_REVERTED } from '../../chain/reverts';
import { CHAIN_UNAVAILABLE } from '../../errors';
import { APP_NOT_FOUND } from '../apps/apps.service';
import type { RestRoute } from '../../operations/routes';
import { BadgesResolver } from './badges.resolver';

/** Failures (validation included): Shape A; an unknown app is 404 `{status:'failed', error:'App not found', app_id, chain}`. */
export const badgesRoutes: RestRoute<BadgesResolver>[] = [
  {
    method: 'post',
    path: '/badge/new',
    operation: BadgesResolver.prototype.createBadge,
    errors: STATUS_FAILED_BODY,
    failures: [APP_NOT_FOUND, TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'get',
    path: '/badges',
    operation: BadgesResolver.prototype.badges,
    errors: STATUS_FAILED_BODY,
    failures: [APP_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'status',
    resultField: 'badges',
  },
];
