import { SHAPE_C } from '../../operations/error-shapes';
import type { RestRoute } from '../../operations/routes';
import type { ProfileResolver } from './profile.resolver';

/** Validation: Shape C (`path` an array of strings); an unknown app: 404 `{status:'failed', error:'App not found', app_id, chain}`. */
export const profileRoutes: RestRoute<ProfileResolver>[] = [
  { method: 'get', path: '/profile', operation: 'profile', errors: SHAPE_C, envelope: 'none' },
];
