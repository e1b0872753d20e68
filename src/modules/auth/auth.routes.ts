import type { Router } from 'express';
import { SHAPE_A, SHAPE_C, type ErrorShapes } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import type { AuthResolver } from './auth.resolver';
import {
  listApiKeysSchema,
  requestChallengeSchema,
  revokeApiKeySchema,
  verifyChallengeSchema,
} from './auth.schema';

/** POST /key/verify: validation issues in Shape C, a failed verification as `{error}`. */
const VERIFY_SHAPES: ErrorShapes = { validation: 'C', failure: 'bare' };

/** The unversioned {auth_url} routes: no API key needed. */
export function mountAuthRootRoutes(router: Router, resolver: AuthResolver): void {
  mount(router, {
    method: 'post',
    path: '/key/challenge',
    input: requestChallengeSchema,
    errors: SHAPE_C,
    envelope: 'status',
    handle: (input) => resolver.requestApiKeyChallenge(input),
  });
  mount(router, {
    method: 'post',
    path: '/key/verify',
    input: verifyChallengeSchema,
    errors: VERIFY_SHAPES,
    envelope: 'none',
    handle: (input) => resolver.verifyApiKeyChallenge(input),
  });
}

/** The account's key management under {base_url}. */
export function mountAuthApiRoutes(router: Router, resolver: AuthResolver): void {
  mount(router, {
    method: 'get',
    path: '/keys',
    input: listApiKeysSchema,
    errors: SHAPE_A,
    envelope: 'status',
    handle: async (_input, ctx) => ({ keys: await resolver.apiKeys(ctx) }),
  });
  mount(router, {
    method: 'delete',
    path: '/keys/:id',
    input: revokeApiKeySchema,
    errors: SHAPE_A,
    envelope: 'status',
    handle: async (input, ctx) => ({ key: await resolver.revokeApiKey(input, ctx) }),
  });
}
