import type { Router } from 'express';
import { SHAPE_A } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import type { AppsResolver } from './apps.resolver';
import { createAppSchema, listAppsSchema } from './apps.schema';

/** Failures (validation included): Shape A `{status:'failed', error, ...}`. */
export function mountAppsRoutes(router: Router, resolver: AppsResolver): void {
  mount(router, {
    method: 'post',
    path: '/app/new',
    input: createAppSchema,
    errors: SHAPE_A,
    envelope: 'success',
    handle: (input, ctx) => resolver.createApp(input, ctx),
  });
  mount(router, {
    method: 'get',
    path: '/apps',
    input: listAppsSchema,
    errors: SHAPE_A,
    envelope: 'status',
    handle: async (input, ctx) => ({ apps: await resolver.apps(input, ctx) }),
  });
}
