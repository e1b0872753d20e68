import { SHAPE_B, SHAPE_ZOD } from '../../operations/error-shapes';
import type { RestRoute } from '../../operations/routes';
import type { RewardsResolver } from './rewards.resolver';

/**
 * /reward/badge, /reward/point, /reward/XP: validation in the zod-result shape
 * `{success:false, error:{issues, name:'ZodError'}}`, other failures Shape A
 * `{status:'failed', error, ...}` (badges, transaction_error). /reward/credit: Shape B throughout.
 */
export const rewardsRoutes: RestRoute<RewardsResolver>[] = [
  { method: 'post', path: '/reward/badge', operation: 'rewardBadge', errors: SHAPE_ZOD, envelope: 'status' },
  { method: 'post', path: '/reward/credit', operation: 'rewardCredit', errors: SHAPE_B, envelope: 'success' },
  { method: 'post', path: '/reward/point', operation: 'rewardPoint', errors: SHAPE_ZOD, envelope: 'status' },
  { method: 'post', path: '/reward/XP', operation: 'rewardXP', errors: SHAPE_ZOD, envelope: 'status' },
];
