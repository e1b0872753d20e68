import type { Router } from 'express';
import type { ClassType } from 'type-graphql';
import type { ChainRegistry } from '../chain/registry';
import type { TokenDirectory } from '../chain/tokens';
import type { TransactionBuilder } from '../chain/transaction-builder';
import type { Config } from '../config';
import type { Pool } from 'pg';
import type { PrismaClient } from '../db/prisma';
import type { ErrorShapes } from '../http/error-shapes';
import { mountRoutes, type MountedRoute, type RestRoute, type SuccessEnvelope } from '../http/rest';
import type { WebhookDeliverer } from '../jobs/webhooks/webhook-deliverer';
import type { Indexer } from '../indexer/indexer';
import type { Logger } from '../logger';
import type { WebhookSecrets } from './webhooks/webhook-secrets';

/** What every module's service may be built from: configuration, database and the chain layer. */
export interface SharedDeps {
  config: Config;
  log: Logger;
  prisma: PrismaClient;
  /** The pool under `prisma`, for SQL spoken directly (the rate limiter). */
  pool: Pool;
  chains: ChainRegistry;
  /** The index of contract events (read-your-writes ingestion of receipts, changes for read caches). */
  indexer: Pick<Indexer, 'ingestReceipt' | 'changes'>;
  /** The one transaction builder (fee cache, nonce reservation) every write operation uses. */
  builder: TransactionBuilder;
  /** The one credit/point token lookup (cached). */
  tokens: TokenDirectory;
  /** Webhook secrets and the delivery layer (src/jobs/webhooks), shared by the module and the jobs. */
  webhooks: { secrets: WebhookSecrets; deliverer: WebhookDeliverer };
}

/** A module as far as its service goes. */
export interface ServiceSource<S> {
  name: string;
  service: (deps: ModuleDeps) => S;
}

export interface ModuleDeps extends SharedDeps {
  /** Another module's service (built once, shared): e.g. rewards use apps' `requireApp`. */
  serviceOf<S>(module: ServiceSource<S>): S;
}

/**
 * One domain module, described once: how its service is built, its resolver (whose @Operation
 * methods are the GraphQL API), and the REST paths that call those methods.
 */
export interface ModuleDescription<S, R extends object> extends ServiceSource<S> {
  resolver: new (service: S) => R;
  /** Unversioned {auth_url} paths (no API key). */
  authRoutes?: readonly RestRoute<R>[];
  /** {base_url} paths, served under /v1 and /api/v1. */
  routes?: readonly RestRoute<R>[];
}

/** A module with its resolver built: what GraphQL and REST are assembled from. */
export interface ModuleInstance {
  name: string;
  resolverClass: ClassType;
  resolver: object;
  /** Mounts the {auth_url} paths; returns them. */
  mountAuthRoutes(router: Router): MountedRoute[];
  /** Mounts the {base_url} paths; returns them. */
  mountRoutes(router: Router): MountedRoute[];
}

/** A REST path of a module as documents and tests see it: what it calls and how it answers. */
export interface ModulePath extends MountedRoute {
  /** `auth`: under {auth_url}; `api`: under {base_url}. */
  base: 'auth' | 'api';
  operation: string;
  errors: ErrorShapes;
  envelope: SuccessEnvelope;
  resultField?: string;
  alsoAnswers?: readonly { status: number; description: string }[];
  description?: string;
}

function modulePath<R>(base: ModulePath['base'], route: RestRoute<R>): ModulePath {
  const { method, path, operation, errors, envelope, resultField, alsoAnswers, description } = route;
  return { base, method, path, operation, errors, envelope, resultField, alsoAnswers, description };
}

/** A described module, ready for the registry (./index.ts) whatever its service and resolver types. */
export interface LaurelModule<S> extends ServiceSource<S> {
  resolverClass: ClassType;
  /** Every REST path of the module (for docs and tests; mounting is instantiate's). */
  paths: readonly ModulePath[];
  instantiate(deps: ModuleDeps): ModuleInstance;
}

export function defineModule<S, R extends object>(description: ModuleDescription<S, R>): LaurelModule<S> {
  const module: LaurelModule<S> = {
    name: description.name,
    service: description.service,
    resolverClass: description.resolver,
    paths: [
      ...(description.authRoutes ?? []).map((route) => modulePath('auth', route)),
      ...(description.routes ?? []).map((route) => modulePath('api', route)),
    ],
    instantiate: (deps) => {
      const resolver = new description.resolver(deps.serviceOf(module));
      return {
        name: description.name,
        resolverClass: description.resolver,
        resolver,
        mountAuthRoutes: (router) => mountRoutes(router, resolver, description.authRoutes ?? []),
        mountRoutes: (router) => mountRoutes(router, resolver, description.routes ?? []),
      };
    },
  };
  return module;
}
