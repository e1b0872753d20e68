import type { Router } from 'express';
import { z } from 'zod';
import { SHAPE_A } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import type { ChainsResolver } from './chains.resolver';

export function mountChainsRoutes(router: Router, resolver: ChainsResolver): void {
  mount(router, {
    method: 'get',
    path: '/chains',
    input: z.object({}),
    errors: SHAPE_A,
    envelope: 'status',
    handle: async () => ({ chains: await resolver.chainList() }),
  });
}
