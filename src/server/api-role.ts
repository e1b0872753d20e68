import { createServer, type Server } from 'node:http';
import type { ChainRegistry } from '../chain/registry';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { buildGraphQLSchema } from '../graphql/schema';
import { createHttpApp } from '../http/app';
import { buildOpenApiDocument } from '../http/openapi';
import type { Indexer } from '../indexer/indexer';
import type { Logger } from '../logger';
import { laurelModules, resolverClasses, type Modules } from '../modules';
import { LAUREL_VERSION } from '../version';
import { withinGrace, type Lifecycle } from './lifecycle';

export interface HttpDeps {
  log: Logger;
  prisma: PrismaClient;
  chains: ChainRegistry;
  indexer: Indexer;
  /** Given with the `api` role: the API is served; without it, only /health and /ready. */
  api: Modules | null;
}

/**
 * The HTTP server every process runs: the API (REST, GraphQL, the API reference) with the `api`
 * role, and always /health and /ready. Returns the URL it listens on.
 */
export async function startHttpServer(config: Config, lifecycle: Lifecycle, deps: HttpDeps): Promise<string> {
  const { api: modules, prisma, chains, indexer } = deps;
  const schema = modules ? await buildGraphQLSchema(resolverClasses, modules.api) : null;
  const http = await createHttpApp({
    log: deps.log,
    trustProxy: config.http.trustProxy,
    api:
      modules && schema
        ? {
            schema,
            openApiDocument: buildOpenApiDocument(laurelModules, schema, LAUREL_VERSION),
            authenticator: modules.authenticator,
            modules: modules.api,
          }
        : undefined,
    // Names what fails, never why: /ready needs no key, and errors carry internal addresses.
    readiness: async () => {
      if (lifecycle.draining) return { ready: false, failing: ['shutting down'], checks: {} };
      const databaseOk = await prisma.$queryRaw`SELECT 1`.then(
        () => true,
        () => false,
      );
      // Providers by name (`base#2`) and state, never by URL (URLs carry API keys).
      const chainChecks = (await chains.checkAll()).map(({ name, ok, providers }) => ({
        name,
        ok,
        providers,
      }));
      const failing = [
        ...(databaseOk ? [] : ['database']),
        ...chainChecks.filter((check) => !check.ok).map((check) => `chain ${check.name}`),
      ];
      return {
        ready: failing.length === 0,
        failing,
        checks: { database: { ok: databaseOk }, chains: chainChecks, indexer: indexer.status() },
      };
    },
  });
  lifecycle.onStop('graphql', () => http.stop());
  // Slow or idle clients cannot hold sockets for long, nor open them without bound.
  const server: Server = createServer(
    {
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // How often those timeouts are checked (Node's default, 30 s, would let them run long).
      connectionsCheckingInterval: Math.min(1_000, config.http.requestTimeoutMs),
    },
    http.app,
  );
  server.maxConnections = config.http.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EADDRINUSE' ? new Error(`port ${config.port} is in use; set PORT`) : error;
  });
  // No new connections; requests in flight may finish within the grace period, then the rest
  // are cut. Idle keep-alive connections close at once.
  const graceMs = config.shutdownGraceSeconds * 1000;
  lifecycle.onStop('http server', async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await withinGrace(closed, graceMs);
    server.closeAllConnections();
    await closed;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
