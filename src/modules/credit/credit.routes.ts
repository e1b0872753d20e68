import type { Router } from 'express';
import { SHAPE_B } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import type { CreditResolver } from './credit.resolver';
import {
  approveCreditSchema,
  createCreditTokenSchema,
  creditBalanceSchema,
  creditPermitDataSchema,
  creditTokensSchema,
} from './credit.schema';

/**
 * Credit token endpoints. Failures: Shape B `{success:false, error:{code, message, ...}}` —
 * validation_error (400, with issues), token_not_found / app_not_found (404), transaction_error (422).
 */
export function mountCreditRoutes(router: Router, resolver: CreditResolver): void {
  mount(router, {
    method: 'post',
    path: '/credit/new',
    input: createCreditTokenSchema,
    errors: SHAPE_B,
    envelope: 'success',
    handle: (input, ctx) => resolver.createCreditToken(input, ctx),
  });
  mount(router, {
    method: 'post',
    path: '/credit/approve',
    input: approveCreditSchema,
    errors: SHAPE_B,
    envelope: 'success',
    handle: (input, ctx) => resolver.approveCredit(input, ctx),
  });
  mount(router, {
    method: 'post',
    path: '/credit/permit-data',
    input: creditPermitDataSchema,
    errors: SHAPE_B,
    envelope: 'success',
    handle: async (input) => ({ permitData: await resolver.creditPermitData(input) }),
  });
  mount(router, {
    method: 'post',
    path: '/credit/balance',
    input: creditBalanceSchema,
    errors: SHAPE_B,
    envelope: 'success',
    handle: (input) => resolver.creditBalance(input),
  });
  mount(router, {
    method: 'get',
    path: '/credit/tokens',
    input: creditTokensSchema,
    errors: SHAPE_B,
    envelope: 'status',
    handle: async (input) => ({ tokens: await resolver.creditTokens(input) }),
  });
}
