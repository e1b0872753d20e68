import { STATUS_FAILED_BODY } from '../../operations/error-shapes';
import { TRANSACTION_REVERTED } from '../../chain/reverts';
import { CHAIN_UNAVAILABLE } from '../../errors';
import type { RestRoute } from '../../operations/routes';
import { AppsResolver } from './apps.resolver';

/** Failures (validation included): Shape A `{status:'failed', error, ...}`. */
export const appsRoutes: RestRoute<AppsResolver>[] = [
  {
    method: 'post',
    path: '/app/new',
    operation: AppsResolver.prototype.createApp,
    errors: STATUS_FAILED_BODY,
    failures: [TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'get',
    path: '/apps',
    operation: AppsResolver.prototype.apps,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    resultField: 'apps',
  },
];
