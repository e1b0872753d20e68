import { SUCCESS_FALSE_BODY } from '../../operations/error-shapes';
import { TRANSACTION_REVERTED } from '../../chain/reverts';
import { CHAIN_UNAVAILABLE } from '../../errors';
import { APP_NOT_FOUND } from '../apps/apps.service';
import { TOKEN_NOT_FOUND } from './credit.service';
import type { RestRoute } from '../../operations/routes';
import { CreditResolver } from './credit.resolver';

/**
 * Credit token endpoints. Failures: Shape B `{success:false, error:{code, message, ...}}` —
 * validation_error (400, with issues), token_not_found / app_not_found (404), transaction_error (422).
 */
export const creditRoutes: RestRoute<CreditResolver>[] = [
  {
    method: 'post',
    path: '/credit/new',
    operation: CreditResolver.prototype.createCreditToken,
    errors: SUCCESS_FALSE_BODY,
    failures: [APP_NOT_FOUND, TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/credit/approve',
    operation: CreditResolver.prototype.approveCredit,
    errors: SUCCESS_FALSE_BODY,
    failures: [TOKEN_NOT_FOUND, TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/credit/permit-data',
    operation: CreditResolver.prototype.creditPermitData,
    errors: SUCCESS_FALSE_BODY,
    failures: [TOKEN_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'success',
    resultField: 'permitData',
  },
  {
    method: 'post',
    path: '/credit/transfer',
    operation: CreditResolver.prototype.transferCredit,
    errors: SUCCESS_FALSE_BODY,
    failures: [TOKEN_NOT_FOUND, TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
    description:
      'The original service’s transfer endpoint for a signed permit: the receiver (the caller) sends the transaction and pays its gas; the holder only signed the permit. A bad permit (expired, not signed by the holder for exactly this receiver, amount and deadline) is a `transaction_error` with the decoded revert.',
  },
  {
    method: 'post',
    path: '/credit/balance',
    operation: CreditResolver.prototype.creditBalance,
    errors: SUCCESS_FALSE_BODY,
    failures: [TOKEN_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'get',
    path: '/credit/tokens',
    operation: CreditResolver.prototype.creditTokens,
    errors: SUCCESS_FALSE_BODY,
    failures: [APP_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'status',
    resultField: 'tokens',
  },
];
