import { appsModule } from '../apps/apps.module';
import { defineModule } from '../module';
import { CreditResolver } from './credit.resolver';
import { creditRoutes } from './credit.routes';
import { CreditService } from './credit.service';

/** Credit and point tokens of an app: creation, approvals, permit data, balances, listing. */
export const creditModule = defineModule({
  name: 'credit',
  service: ({ config, index, chains, builder, tokens, serviceOf }) =>
    new CreditService({ config, index, chains, builder, tokens, apps: serviceOf(appsModule) }),
  resolver: CreditResolver,
  routes: creditRoutes,
});
