import { TokenDirectory } from '../chain/tokens';
import type { TaskDeps } from '../jobs/tasks';
import type { IdempotencyStore } from '../operations/idempotency';
import type { RequestAuthenticator } from '../operations/request-context';
import type { ApiModule } from '../operations/routes';
import { appsModule } from './apps/apps.module';
import { authModule } from './auth/auth.module';
import { badgesModule } from './badges/badges.module';
import { chainsModule } from './chains/chains.module';
import { creditModule } from './credit/credit.module';
import { leaderboardModule } from './leaderboard/leaderboard.module';
import type { LaurelModule, ModuleDeps, Services } from './module';
import { profileModule } from './profile/profile.module';
import { rewardsModule } from './rewards/rewards.module';
import { TransactionBuilder } from './transactions/building/transaction-builder';
import { transactionsModule } from './transactions/transactions.module';
import { webhooksModule } from './webhooks/webhooks.module';

export type { LaurelModule, Services };

/**
 * Every module, listed once. The GraphQL schema (and schema.graphql), the REST routes, the API
 * reference and the services all come from this list.
 */
export const laurelModules: readonly LaurelModule<unknown>[] = [
  authModule,
  chainsModule,
  appsModule,
  badgesModule,
  creditModule,
  rewardsModule,
  transactionsModule,
  webhooksModule,
  profileModule,
  leaderboardModule,
];

/** The resolver classes of every module, for building (or printing) the GraphQL schema. */
export const resolverClasses = laurelModules.map((module) => module.resolverClass);

export interface Modules {
  /** Each module with its one resolver instance: GraphQL and REST call the same objects. */
  api: ApiModule[];
  /** A module's service (tests look into some). */
  serviceOf<S>(module: LaurelModule<S>): S;
  /** What each module gives the job tasks (LaurelModule.tasks), in the modules' order. */
  tasks: Partial<TaskDeps>[];
  /** Runs each module's start (LaurelModule.start), one after the other. */
  start(): Promise<void>;
  authenticator: RequestAuthenticator;
  /** Where the answers of requests sent with an Idempotency-Key are kept. */
  idempotency: IdempotencyStore;
  /**
   * Stops what services run in the background: broadcasts under way end (recorded and sent, or
   * un-recorded) and no new one starts, then request counts held in memory go to the database and
   * webhook first attempts under way end.
   */
  stop(): Promise<void>;
}

/** Builds every module's service and resolver once (a service is built when first needed). */
export function createModules(services: Services): Modules {
  const built = new Map<LaurelModule<unknown>, unknown>();
  const building = new Set<LaurelModule<unknown>>();
  const deps: ModuleDeps = {
    ...services,
    builder: new TransactionBuilder(services),
    tokens: new TokenDirectory(services.chains, services.config.chainText),
    serviceOf: <S>(module: LaurelModule<S>): S => {
      if (!built.has(module)) {
        if (building.has(module)) throw new Error(`module ${module.name}: its service depends on itself`);
        building.add(module);
        built.set(module, module.service(deps));
        building.delete(module);
      }
      return built.get(module) as S;
    },
  };
  const api = laurelModules.map((module) => module.instantiate(deps.serviceOf(module)));
  const auth = deps.serviceOf(authModule);
  const webhooks = deps.serviceOf(webhooksModule);
  return {
    api,
    serviceOf: deps.serviceOf,
    tasks: laurelModules.flatMap((module) => module.tasks?.(deps.serviceOf(module)) ?? []),
    start: async () => {
      for (const module of laurelModules) await module.start?.(deps.serviceOf(module));
    },
    authenticator: auth,
    idempotency: auth.idempotency,
    stop: async () => {
      // First: a broadcast that ends records a receipt, whose webhook first attempts webhooks.stop() awaits.
      await deps.serviceOf(transactionsModule).sending.stop();
      await Promise.all([auth.stop(), webhooks.stop()]);
    },
  };
}
