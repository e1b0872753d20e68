import { SHAPE_A } from '../../http/error-shapes';
import type { RestRoute } from '../../http/rest';
import type { ChainsResolver } from './chains.resolver';

export const chainsRoutes: RestRoute<ChainsResolver>[] = [
  {
    method: 'get',
    path: '/chains',
    operation: 'chainList',
    errors: SHAPE_A,
    envelope: 'status',
    resultField: 'chains',
  },
];
