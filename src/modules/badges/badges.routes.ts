import { SHAPE_A } from '../../operations/error-shapes';
import type { RestRoute } from '../../operations/routes';
import type { BadgesResolver } from './badges.resolver';

/** Failures (validation included): Shape A; an unknown app is 404 `{status:'failed', error:'App not found', app_id, chain}`. */
export const badgesRoutes: RestRoute<BadgesResolver>[] = [
  { method: 'post', path: '/badge/new', operation: 'createBadge', errors: SHAPE_A, envelope: 'success' },
  {
    method: 'get',
    path: '/badges',
    operation: 'badges',
    errors: SHAPE_A,
    envelope: 'status',
    resultField: 'badges',
  },
];
