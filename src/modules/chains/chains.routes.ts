import { SHAPE_A } from '../../operations/error-shapes';

import type { RestRoute } from '../../operations/routes';
import type { ChainsResolver } from './chains.resolver';

export const chainsRoutes: RestRoute<ChainsResolver>[] = [
  {
    method: 'get',
    path: '/chains',
    operation: 'chainList',
    errors: SHAPE_A,
    failures: [],
    envelope: 'status',
    resultField: 'chains',
  },
];
