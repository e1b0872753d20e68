import type { Router } from 'express';
import type { NonEmptyArray } from 'type-graphql';
import type { ChainRegistry } from '../chain/registry';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import type { RequestAuthenticator } from '../http/app';
import type { Logger } from '../logger';
import type { ResolverClass } from '../graphql/schema';
import { AuthResolver } from './auth/auth.resolver';
import { mountAuthApiRoutes, mountAuthRootRoutes } from './auth/auth.routes';
import { AuthService } from './auth/auth.service';
import { ChainsResolver } from './chains/chains.resolver';
import { mountChainsRoutes } from './chains/chains.routes';
import { TransactionsResolver } from './transactions/transactions.resolver';
import { mountTransactionsRoutes } from './transactions/transactions.routes';
import { TransactionsService } from './transactions/transactions.service';
import { CreditResolver } from './credit/credit.resolver';
import { mountCreditRoutes } from './credit/credit.routes';
import { CreditService } from './credit/credit.service';
import { TokenDirectory } from '../chain/tokens';
import { TransactionBuilder } from '../chain/transaction-builder';
import { AppsResolver } from './apps/apps.resolver';
import { mountAppsRoutes } from './apps/apps.routes';
import { AppsService } from './apps/apps.service';
import { BadgesResolver } from './badges/badges.resolver';
import { mountBadgesRoutes } from './badges/badges.routes';
import { BadgesService } from './badges/badges.service';
import { RewardsResolver } from './rewards/rewards.resolver';
import { mountRewardsRoutes } from './rewards/rewards.routes';
import { RewardsService } from './rewards/rewards.service';
import type { WebhookDeliverer } from '../jobs/webhooks/webhook-deliverer';
import type { WebhookSecrets } from './webhooks/webhook-secrets';

/** The shared dependencies every module's service is built from. */
export interface Services {
  config: Config;
  log: Logger;
  prisma: PrismaClient;
  chains: ChainRegistry;
  webhooks: { secrets: WebhookSecrets; deliverer: WebhookDeliverer };
}

/** Every resolver class, in one list: the GraphQL schema (and schema.graphql) is built from it. */
export const resolverClasses: NonEmptyArray<ResolverClass> = [
  AuthResolver,
  ChainsResolver,
  TransactionsResolver,
  CreditResolver,
  AppsResolver,
  BadgesResolver,
  RewardsResolver,
];

export interface Modules {
  resolvers: object[];
  authenticator: RequestAuthenticator;
  /** {auth_url} routes. */
  mountRoot(router: Router): void;
  /** {base_url} routes. */
  mountApi(router: Router): void;
  /** The one transaction builder (fee cache, nonce reservation) every write operation uses. */
  builder: TransactionBuilder;
  /** The one credit/point token lookup (cached). */
  tokens: TokenDirectory;
}

/** Builds each module's service and resolver once; REST routes and GraphQL share the instances. */
export function createModules(services: Services): Modules {
  // The shared chain layer, one of each: the transaction builder, the token directory, app lookup.
  const builder = new TransactionBuilder(services);
  const tokens = new TokenDirectory(services.chains);
  const appsService = new AppsService({ chains: services.chains, builder });
  const authService = new AuthService(services.prisma, services.config, services.log);
  const authResolver = new AuthResolver(authService);
  const chainsResolver = new ChainsResolver(services.chains);
  const transactionsResolver = new TransactionsResolver(new TransactionsService(services));
  const creditService = new CreditService({ ...services, builder, tokens, apps: appsService });
  const creditResolver = new CreditResolver(creditService);
  const appsResolver = new AppsResolver(appsService);
  const badgesService = new BadgesService({ chains: services.chains, builder, apps: appsService });
  const badgesResolver = new BadgesResolver(badgesService);
  const rewardsResolver = new RewardsResolver(
    new RewardsService({
      chains: services.chains,
      builder,
      tokens,
      apps: appsService,
      badges: badgesService,
    }),
  );
  return {
    resolvers: [
      authResolver,
      chainsResolver,
      transactionsResolver,
      creditResolver,
      appsResolver,
      badgesResolver,
      rewardsResolver,
    ],
    authenticator: authService,
    builder,
    tokens,
    mountRoot: (router) => {
      mountAuthRootRoutes(router, authResolver);
    },
    mountApi: (router) => {
      mountAuthApiRoutes(router, authResolver);
      mountChainsRoutes(router, chainsResolver);
      mountTransactionsRoutes(router, transactionsResolver);
      mountCreditRoutes(router, creditResolver);
      mountAppsRoutes(router, appsResolver);
      mountBadgesRoutes(router, badgesResolver);
      mountRewardsRoutes(router, rewardsResolver);
    },
  };
}
