import { ZOD_RESULT_BODY } from '../../operations/error-shapes';
import { CHAIN_UNAVAILABLE } from '../../errors';
import { APP_NOT_FOUND } from '../apps/apps.service';
import type { RestRoute } from '../../operations/routes';
import { LeaderboardResolver } from './leaderboard.resolver';

/**
 * 200: an array of `{user, xp_rewarded}`. Validation: the zod result `{success:false, error:{issues,
 * name:'ZodError'}}`; an unknown app: 404 `{status:'failed', error:'App not found', app_id, chain}`.
 */
export const leaderboardRoutes: RestRoute<LeaderboardResolver>[] = [
  {
    method: 'get',
    path: '/leaderboard',
    operation: LeaderboardResolver.prototype.leaderboard,
    errors: ZOD_RESULT_BODY,
    failures: [APP_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'none',
  },
];
