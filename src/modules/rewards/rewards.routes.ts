import type { Router } from 'express';
import { SHAPE_B, SHAPE_ZOD } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import type { RewardsResolver } from './rewards.resolver';
import { rewardBadgeSchema, rewardCreditSchema, rewardPointSchema, rewardXPSchema } from './rewards.schema';

/**
 * /reward/badge, /reward/point, /reward/XP: validation in the zod-result shape
 * `{success:false, error:{issues, name:'ZodError'}}`, other failures Shape A
 * `{status:'failed', error, ...}` (badges, transaction_error). /reward/credit: Shape B throughout.
 */
export function mountRewardsRoutes(router: Router, resolver: RewardsResolver): void {
  mount(router, {
    method: 'post',
    path: '/reward/badge',
    input: rewardBadgeSchema,
    errors: SHAPE_ZOD,
    envelope: 'status',
    handle: (input, ctx) => resolver.rewardBadge(input, ctx),
  });
  mount(router, {
    method: 'post',
    path: '/reward/credit',
    input: rewardCreditSchema,
    errors: SHAPE_B,
    envelope: 'success',
    handle: (input, ctx) => resolver.rewardCredit(input, ctx),
  });
  mount(router, {
    method: 'post',
    path: '/reward/point',
    input: rewardPointSchema,
    errors: SHAPE_ZOD,
    envelope: 'status',
    handle: (input, ctx) => resolver.rewardPoint(input, ctx),
  });
  mount(router, {
    method: 'post',
    path: '/reward/XP',
    input: rewardXPSchema,
    errors: SHAPE_ZOD,
    envelope: 'status',
    handle: (input, ctx) => resolver.rewardXP(input, ctx),
  });
}
