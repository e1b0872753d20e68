import { SHAPE_B } from '../../operations/error-shapes';
import type { RestRoute } from '../../operations/routes';
import type { CreditResolver } from './credit.resolver';

/**
 * Credit token endpoints. Failures: Shape B `{success:false, error:{code, message, ...}}` —
 * validation_error (400, with issues), token_not_found / app_not_found (404), transaction_error (422).
 */
export const creditRoutes: RestRoute<CreditResolver>[] = [
  {
    method: 'post',
    path: '/credit/new',
    operation: 'createCreditToken',
    errors: SHAPE_B,
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/credit/approve',
    operation: 'approveCredit',
    errors: SHAPE_B,
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/credit/permit-data',
    operation: 'creditPermitData',
    errors: SHAPE_B,
    envelope: 'success',
    resultField: 'permitData',
  },
  {
    method: 'post',
    path: '/credit/balance',
    operation: 'creditBalance',
    errors: SHAPE_B,
    envelope: 'success',
  },
  {
    method: 'get',
    path: '/credit/tokens',
    operation: 'creditTokens',
    errors: SHAPE_B,
    envelope: 'status',
    resultField: 'tokens',
  },
];
