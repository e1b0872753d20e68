import { defineModule } from '../module';
import { AuthRepository } from './auth.repository';
import { AuthResolver } from './auth.resolver';
import { authApiRoutes, authRootRoutes } from './auth.routes';
import { AuthService } from './auth.service';
import { IdempotencyRecords } from './idempotency-records';
import { RequestBudgets } from './request-budgets';

/** Accounts and API keys: wallet-signed challenges, keys, request authentication and rate limits. */
export const authModule = defineModule({
  name: 'auth',
  service: ({ prisma, pool, config, notifications, log, chains }) =>
    new AuthService(
      new AuthRepository(prisma),
      config,
      new RequestBudgets(pool, config.auth, log),
      new IdempotencyRecords(pool, config.auth.idempotency),
      notifications,
      log,
      // Sign-in messages name a chain (EIP-4361); a key is good on every chain Laurel serves.
      chains.list()[0]?.chainId ?? 1,
    ),
  resolver: AuthResolver,
  tasks: (auth) => ({ housekeeping: [auth] }),
  authRoutes: authRootRoutes,
  routes: authApiRoutes,
});
