import express from 'express';
import type { ChainRegistry } from '../chain/registry';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import type { ReadReplicas } from '../db/read-replicas';
import { buildGraphQLSchema } from '../graphql/schema';
import { createHttpApp } from '../http/app';
import { metricsEndpoint } from '../http/metrics-endpoint';
import { buildOpenApiDocument } from '../http/openapi';
import type { Indexer } from '../indexer/indexer';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { laurelModules, resolverClasses, type Modules } from '../modules';
import { sharedWithin } from '../single-flight';
import { LAUREL_VERSION } from '../version';
import type { HttpPorts } from './http-ports';
import { withinGrace, type Lifecycle } from './lifecycle';

export interface HttpDeps {
  log: Logger;
  prisma: PrismaClient;
  chains: ChainRegistry;
  indexer: Indexer;
  metrics: LaurelMetrics | null;
  /** Read replicas: /ready shows each one's state (reads go to the primary while one is down or behind). */
  reads: ReadReplicas;
  /** Given with the `api` role: the API is served; without it, only /, /health, /ready (and /metrics). */
  api: Modules | null;
}

/**
 * What every process serves on its ports: the API (REST, GraphQL, the API reference) with the
 * `api` role; always /, /health, /ready; /metrics on the main port or on METRICS_PORT.
 */
export async function serveHttp(
  config: Config,
  lifecycle: Lifecycle,
  ports: HttpPorts,
  deps: HttpDeps,
): Promise<void> {
  const { api: modules, prisma, chains, indexer, metrics, reads } = deps;
  // /ready needs no key: its calls to the database and to every RPC provider (whose quota builds
  // need) are made at most once per interval, whoever asks and however often.
  const dependencies = sharedWithin(config.http.readyCheckIntervalMs, async () => {
    const [databaseOk, chainHealth] = await Promise.all([
      prisma.$queryRaw`SELECT 1`.then(
        () => true,
        () => false,
      ),
      chains.checkAll(),
    ]);
    // Providers by name (`base#2`) and state, never by URL (URLs carry API keys).
    const chainChecks = chainHealth.map(({ name, ok, providers }) => ({ name, ok, providers }));
    return { databaseOk, chainChecks };
  });
  const schema = modules ? await buildGraphQLSchema(resolverClasses, modules.api) : null;
  const http = await createHttpApp({
    log: deps.log,
    trustProxy: config.http.trustProxy,
    metrics: metrics ?? undefined,
    metricsHere:
      metrics && !ports.metrics
        ? { token: config.metrics.token, trustLoopback: config.http.trustProxy === undefined }
        : undefined,
    api:
      modules && schema
        ? {
            schema,
            openApiDocument: () =>
              buildOpenApiDocument(
                laurelModules,
                schema,
                LAUREL_VERSION,
                chains.list().map((chain) => chain.name),
                config.webhooks.signatureHeader,
              ),
            authenticator: modules.authenticator,
            idempotency: modules.idempotency,
            modules: modules.api,
            subscriptions: {
              server: ports.main.server,
              perKey: config.subscriptions.perKey,
              socketsPerKey: config.subscriptions.socketsPerKey,
              pingIntervalMs: config.subscriptions.pingIntervalMs,
              initTimeoutMs: config.subscriptions.initTimeoutMs,
            },
          }
        : undefined,
    // Names what fails, never why: /ready needs no key, and errors carry internal addresses.
    readiness: async () => {
      if (lifecycle.draining) return { ready: false, failing: ['shutting down'], checks: {} };
      const { databaseOk, chainChecks } = await dependencies();
      const indexers = indexer.status();
      const failing = [
        ...(databaseOk ? [] : ['database']),
        ...chainChecks.filter((check) => !check.ok).map((check) => `chain ${check.name}`),
        // Stopped by a reorganisation deeper than the finality window: its index no longer follows the chain.
        ...indexers.filter((status) => status.fork).map((status) => `indexer ${status.chain}`),
      ];
      // Events passed without being written: the index goes on without them, so the process stays
      // in rotation; an operator looks them up in unindexable_events.
      const warnings = indexers
        .filter((status) => status.unindexable && status.unindexable.events > 0)
        .map((status) => `indexer ${status.chain}: ${status.unindexable!.events} unindexable events`);
      return {
        ready: failing.length === 0,
        failing,
        warnings,
        checks: {
          database: { ok: databaseOk },
          // Not a failure: the primary serves what a replica down or behind cannot.
          ...(reads.serving ? { readReplicas: reads.status() } : {}),
          chains: chainChecks,
          indexer: indexers,
        },
      };
    },
  });
  lifecycle.onStop('graphql', () => http.stop());
  ports.main.handle(http.app);
  if (ports.metrics && metrics) {
    const metricsApp = express();
    metricsApp.disable('x-powered-by');
    metricsApp.get('/metrics', metricsEndpoint(metrics, { open: true }));
    ports.metrics.handle(metricsApp);
  }
  // The drain (see Listening.drain): new connections refused, no request taken from now on,
  // `Connection: close` on every answer. Subscriptions are told the server is going away (their
  // sockets would hold the server open). Requests in flight have the grace to be answered
  // (execute-and-wait answers what it knows before it ends: Lifecycle.answerNow); what is left
  // then is cut, and said so.
  const graceMs = config.shutdownGraceSeconds * 1000;
  const { server } = ports.main;
  lifecycle.onStop('http server', async () => {
    const drained = ports.main.drain();
    await http.closeSubscriptions();
    if (await withinGrace(drained, graceMs)) return;
    const cut = ports.main.inFlight();
    if (cut > 0) deps.log.warn({ requests: cut }, 'requests still unanswered at the end of the grace: cut');
    server.closeAllConnections();
    await drained;
  });
}
