import { STATUS_FAILED_BODY } from '../../operations/error-shapes';

import type { RestRoute } from '../../operations/routes';
import { ChainsResolver } from './chains.resolver';

export const chainsRoutes: RestRoute<ChainsResolver>[] = [
  {
    method: 'get',
    path: '/chains',
    operation: ChainsResolver.prototype.chainList,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    resultField: 'chains',
  },
];
