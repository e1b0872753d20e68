import { SUCCESS_FALSE_BODY, ZOD_RESULT_BODY } from '../../operations/error-shapes';
import { TRANSACTION_REVERTED } from '../../chain/reverts';
import { CHAIN_UNAVAILABLE } from '../../errors';
import { APP_NOT_FOUND } from '../apps/apps.service';
import { BADGE_NOT_FOUND, TOO_MANY_BADGES } from '../badges/badges.service';
import { TOKEN_NOT_FOUND } from '../credit/credit.service';
import type { RestRoute } from '../../operations/routes';
import { RewardsResolver } from './rewards.resolver';
import { BATCH_UNSUPPORTED } from './rewards.service';

/**
 * /reward/badge, /reward/point, /reward/XP: validation in the zod-result shape
 * `{success:false, error:{issues, name:'ZodError'}}`, other failures Shape A
 * `{status:'failed', error, ...}` (badges, transaction_error). /reward/credit and /reward/batch:
 * Shape B throughout.
 */
/** What building any reward transaction can fail with. */
const BUILD_FAILURES = [TRANSACTION_REVERTED, CHAIN_UNAVAILABLE];

export const rewardsRoutes: RestRoute<RewardsResolver>[] = [
  {
    method: 'post',
    path: '/reward/badge',
    operation: RewardsResolver.prototype.rewardBadge,
    errors: ZOD_RESULT_BODY,
    failures: [APP_NOT_FOUND, BADGE_NOT_FOUND, TOO_MANY_BADGES, ...BUILD_FAILURES],
    envelope: 'status',
  },
  {
    method: 'post',
    path: '/reward/batch',
    operation: RewardsResolver.prototype.rewardBatch,
    errors: SUCCESS_FALSE_BODY,
    failures: [
      APP_NOT_FOUND,
      BADGE_NOT_FOUND,
      TOO_MANY_BADGES,
      TOKEN_NOT_FOUND,
      BATCH_UNSUPPORTED,
      ...BUILD_FAILURES,
    ],
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/reward/credit',
    operation: RewardsResolver.prototype.rewardCredit,
    errors: SUCCESS_FALSE_BODY,
    failures: [APP_NOT_FOUND, TOKEN_NOT_FOUND, ...BUILD_FAILURES],
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/reward/point',
    operation: RewardsResolver.prototype.rewardPoint,
    errors: ZOD_RESULT_BODY,
    failures: [APP_NOT_FOUND, TOKEN_NOT_FOUND, ...BUILD_FAILURES],
    envelope: 'status',
  },
  {
    method: 'post',
    path: '/reward/XP',
    operation: RewardsResolver.prototype.rewardXP,
    errors: ZOD_RESULT_BODY,
    failures: [APP_NOT_FOUND, ...BUILD_FAILURES],
    envelope: 'status',
  },
];
