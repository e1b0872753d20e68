import { SHAPE_A } from '../../operations/error-shapes';
import { TRANSACTION_REVERTED } from '../../chain/reverts';
import { CHAIN_UNAVAILABLE } from '../../errors';
import type { RestRoute } from '../../operations/routes';
import type { AppsResolver } from './apps.resolver';

/** Failures (validation included): Shape A `{status:'failed', error, ...}`. */
export const appsRoutes: RestRoute<AppsResolver>[] = [
  {
    method: 'post',
    path: '/app/new',
    operation: 'createApp',
    errors: SHAPE_A,
    failures: [TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'get',
    path: '/apps',
    operation: 'apps',
    errors: SHAPE_A,
    failures: [],
    envelope: 'status',
    resultField: 'apps',
  },
];
