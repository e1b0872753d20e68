import type { Router } from 'express';
import { SHAPE_A } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import type { BadgesResolver } from './badges.resolver';
import { createBadgeSchema, listBadgesSchema } from './badges.schema';

/** Failures (validation included): Shape A; an unknown app is 404 `{status:'failed', error:'App not found'}`. */
export function mountBadgesRoutes(router: Router, resolver: BadgesResolver): void {
  mount(router, {
    method: 'post',
    path: '/badge/new',
    input: createBadgeSchema,
    errors: SHAPE_A,
    envelope: 'success',
    handle: (input, ctx) => resolver.createBadge(input, ctx),
  });
  mount(router, {
    method: 'get',
    path: '/badges',
    input: listBadgesSchema,
    errors: SHAPE_A,
    envelope: 'status',
    handle: async (input, ctx) => ({ badges: await resolver.badges(input, ctx) }),
  });
}
