import type { Pool } from 'pg';
import type { ClassType } from 'type-graphql';
import type { ChainEventHub } from '../chain/chain-events';
import type { ChainRegistry } from '../chain/registry';
import type { TokenDirectory } from '../chain/tokens';
import type { Config } from '../config';
import type { NotificationSession } from '../db/notifications';
import type { PrismaClient } from '../db/prisma';
import type { Indexer } from '../indexer/indexer';
import type { TaskDeps } from '../jobs/tasks';
import type { IndexReader } from '../indexer/read/index-reader';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import type { ApiModule, DeclaredRoute, RestRoute } from '../operations/routes';
import type { OutboundHttpsClient } from '../outbound-https';
import type { TransactionBuilder } from './transactions/building/transaction-builder';
import type { WebhookHttpClient } from './webhooks/webhook-http-client';

/** What modules are built from: configuration, database, chains and the index. */
export interface Services {
  config: Config;
  log: Logger;
  prisma: PrismaClient;
  /** The pool under `prisma`, for SQL spoken directly (rate limits, nonce reservations). */
  pool: Pool;
  chains: ChainRegistry;
  /** Chain restarts and reorganisations, published by the chains and the indexer. */
  events: ChainEventHub;
  /** The chains' indexers: a receipt's events are ingested at once (read-your-writes after execute-and-wait). */
  indexer: Indexer;
  /** The read side of the index and its caches. */
  index: IndexReader;
  /** The process's metrics; null with METRICS=off. */
  metrics: LaurelMetrics | null;
  /** The process's LISTEN session (it listens with the `api` role): what other processes changed. */
  notifications: NotificationSession;
  webhooks: {
    /** Makes webhook calls (SSRF rules, trusted CAs). */
    client: WebhookHttpClient;
    /** Encrypts the account secrets at rest. */
    secretEncryptionKey: Buffer;
  };
  /** Fetches badge metadata documents (the webhooks' SSRF rules, trusted CAs). */
  badgeMetadataClient: OutboundHttpsClient;
  /**
   * Aborted near the end of a stop's grace (SHUTDOWN_ANSWER_MARGIN_MS before it): a request that
   * waits (execute-and-wait) answers what it knows then, before its connection is cut.
   */
  answerNow: AbortSignal;
}

/** What a module's service may be built from. */
export interface ModuleDeps extends Services {
  /** The one transaction builder (fee cache, nonce reservation) every write operation uses. */
  builder: TransactionBuilder;
  /** The one credit/point token lookup (cached). */
  tokens: TokenDirectory;
  /** Another module's service (built once, shared): e.g. rewards use apps' `requireApp`. */
  serviceOf<S>(module: LaurelModule<S>): S;
}

/**
 * One domain module, described once: how its service is built, its resolver (whose @Operation
 * methods are the GraphQL API), and the REST paths that call those methods.
 */
export interface ModuleDescription<S, R extends object> {
  name: string;
  service: (deps: ModuleDeps) => S;
  resolver: new (service: S) => R;
  /** Unversioned {auth_url} paths (no API key). */
  authRoutes?: readonly RestRoute<R>[];
  /** {base_url} paths, served under /v1 and /api/v1. */
  routes?: readonly RestRoute<R>[];
  /** What the module's service gives the job tasks (src/jobs/tasks): the handlers of its jobs, its housekeeping. */
  tasks?: (service: S) => Partial<TaskDeps>;
  /** Run once every module is built, before the worker and the HTTP server start. */
  start?: (service: S) => Promise<void>;
}

/** A described module, ready for the registry (./index.ts) whatever its service and resolver types. */
export interface LaurelModule<S> {
  name: string;
  service: (deps: ModuleDeps) => S;
  resolverClass: ClassType;
  /** Every REST path of the module. */
  routes: readonly DeclaredRoute[];
  /** The module's API: its one resolver, built on its service. */
  instantiate(service: S): ApiModule;
  tasks?(service: S): Partial<TaskDeps>;
  start?(service: S): Promise<void>;
}

export function defineModule<S, R extends object>(description: ModuleDescription<S, R>): LaurelModule<S> {
  const routes: DeclaredRoute[] = [
    ...(description.authRoutes ?? []).map((route) => ({ ...route, base: 'auth' as const })),
    ...(description.routes ?? []).map((route) => ({ ...route, base: 'api' as const })),
  ];
  return {
    name: description.name,
    service: description.service,
    resolverClass: description.resolver,
    routes,
    tasks: description.tasks,
    start: description.start,
    instantiate: (service) => ({
      name: description.name,
      resolverClass: description.resolver,
      resolver: new description.resolver(service),
      routes,
    }),
  };
}
