import { STATUS_FAILED_BODY, SUCCESS_FALSE_BODY } from '../../operations/error-shapes';
import { TRANSACTION_REVERTED } from '../../chain/reverts';
import { CHAIN_UNAVAILABLE } from '../../errors';
import type { RestRoute } from '../../operations/routes';
import { AppsResolver } from './apps.resolver';
import { APP_NOT_FOUND } from './apps.service';

/**
 * Failures (validation included): Shape A `{status:'failed', error, ...}`; the operator builds,
 * added later, answer as the credit builds do, in Shape B `{success:false, error:{code, message, ...}}`
 * (validation_error 400, app_not_found 404, transaction_error 422).
 */
export const appsRoutes: RestRoute<AppsResolver>[] = [
  {
    method: 'post',
    path: '/app/new',
    operation: AppsResolver.prototype.createApp,
    errors: STATUS_FAILED_BODY,
    failures: [TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
  },
  {
    method: 'post',
    path: '/app/operator/add',
    operation: AppsResolver.prototype.addOperator,
    errors: SUCCESS_FALSE_BODY,
    failures: [APP_NOT_FOUND, TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
    description:
      'Signed by the app owner (the only sender the simulation lets through: another gets a `NotOwner` `transaction_error`, a wallet that already operates the app `AlreadyOperator`). Once mined, the operator builds rewards with its own API key and signs them with its own wallet, and the app listing names it among `operators`.',
  },
  {
    method: 'post',
    path: '/app/operator/remove',
    operation: AppsResolver.prototype.removeOperator,
    errors: SUCCESS_FALSE_BODY,
    failures: [APP_NOT_FOUND, TRANSACTION_REVERTED, CHAIN_UNAVAILABLE],
    envelope: 'success',
    description:
      'Signed by the app owner (another sender gets a `NotOwner` `transaction_error`, a wallet that does not operate the app `UnknownOperator`). Once mined, every build of the former operator for the app is refused (`NotOperator`), and its transactions signed before but not yet mined revert.',
  },
  {
    method: 'get',
    path: '/apps',
    operation: AppsResolver.prototype.apps,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    resultField: 'apps',
  },
];
