import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { HDNodeWallet } from 'ethers';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { ChainRegistry, LOCAL_EXPLORER_URL, type Chain } from './chain/registry';
import { wantsLocalChain, type Config } from './config';
import { connectDatabase } from './db/prisma';
import { migrate } from './db/migrator';
import { ANVIL_MNEMONIC, startAnvil } from './embedded/anvil';
import { lockDataFolder, stopOrphans } from './embedded/data-folder';
import { resolveDataDirectory, startEmbeddedPostgres } from './embedded/postgres';
import type { SupervisorReport } from './embedded/supervisor';
import { ensureLaurelDeployed } from './chain/deploy';
import { buildGraphQLSchema } from './graphql/schema';
import { createHttpApp } from './http/app';
import { createTaskList, crontab } from './jobs/tasks';
import { buildOpenApiDocument } from './http/openapi';
import { Indexer } from './indexer/indexer';
import { createWorkerPool, startJobWorker } from './jobs/worker';
import { ThrottledLog, type Logger } from './logger';
import { createModules, laurelModules, resolverClasses, type Services } from './modules';
import { reconcileAllChains, reconcileChain } from './modules/transactions/transactions.reconciler';
import { jobs } from './jobs/jobs';
import { enqueueJob } from './jobs/queue';
import { WebhookDeliverer } from './jobs/webhooks/webhook-deliverer';
import { developmentCaFiles, ensureDevelopmentCa } from './jobs/webhooks/certificates';
import { WebhookDeliveryStore } from './jobs/webhooks/webhook-delivery-store';
import { WebhookHttpClient } from './jobs/webhooks/webhook-http-client';
import {
  resolveWebhookEncryptionKey,
  WebhookSecretBox,
  WebhookSecrets,
} from './modules/webhooks/webhook-secrets';
import { limitHeapGrowth } from './heap-growth';
import { LAUREL_VERSION } from './version';

const silentWorkerLogger = new WorkerLogger(() => () => undefined);

export interface Laurel {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  services: Services;
  stop(): Promise<void>;
}

/** Waits for `work` at most `graceMs`; what is still running then is left to the next stop step. */
async function withinGrace(work: Promise<void>, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
}

export interface StartOptions {
  log: Logger;
  /** One short line per start-up step (the console in `npm start`, nothing in tests). */
  progress?: (line: string) => void;
  /** Start the job worker (default true). */
  worker?: boolean;
}

/**
 * Starts Laurel: database (embedded when DATABASE_URL is absent), migrations, chains (the embedded
 * `local` anvil when no chain is configured), job worker and HTTP server. `stop()` undoes all of it
 * in reverse order; a failure half-way stops what had started.
 */
export async function startLaurel(config: Config, options: StartOptions): Promise<Laurel> {
  limitHeapGrowth();
  const { log } = options;
  const progress = options.progress ?? (() => undefined);
  // What has started, to be stopped in reverse order.
  const stops: { name: string; run: () => Promise<void> }[] = [];
  const onStop = (name: string, run: () => Promise<void>) => stops.push({ name, run });
  // From the first moment of a stop, /ready answers 503: load balancers stop sending requests here.
  let draining = false;
  const graceMs = config.shutdownGraceSeconds * 1000;
  const stop = async () => {
    draining = true;
    for (const step of stops.reverse()) {
      log.debug({ step: step.name }, 'stopping');
      await step
        .run()
        .catch((error: unknown) => log.error({ err: error, step: step.name }, 'error while stopping'));
    }
    stops.length = 0;
  };

  const supervisorLog = log.child({ component: 'supervisor' });
  const report: SupervisorReport = (level, message) => supervisorLog[level](message);

  try {
    const anvilStateFile = path.join(config.dataDir, 'anvil', 'state.json');
    if (!config.databaseUrl || wantsLocalChain(config)) {
      // One Laurel per data folder; what a Laurel that died left running on it is stopped first.
      const lock = await lockDataFolder(config.dataDir);
      onStop('data folder lock', () => lock.release());
      const stopped = await stopOrphans({
        postgresDataDirectory: config.databaseUrl ? undefined : resolveDataDirectory(config.dataDir),
        anvilStateFile: wantsLocalChain(config) ? anvilStateFile : undefined,
      });
      if (stopped.length) {
        progress(
          `cleaned     stopped ${stopped.join(' and ')} left running on ${config.dataDir} by a Laurel that died`,
        );
      }
    }

    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const postgres = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        database: 'laurel',
        log: (line) => log.debug({ postgres: line }),
        report,
      });
      onStop('postgres', () => postgres.stop());
      databaseUrl = postgres.databaseUrl;
      progress(
        `postgres    embedded PostgreSQL on 127.0.0.1:${postgres.port}, data in ${postgres.dataDirectory}`,
      );
    } else {
      progress(`postgres    ${new URL(databaseUrl).host} (DATABASE_URL)`);
    }

    const migrations = await migrate(databaseUrl);
    // graphile-worker's own schema: requests enqueue jobs even in a process that runs no worker.
    const migrationPool = createWorkerPool(databaseUrl, 1, new ThrottledLog(log));
    await runWorkerMigrations({ pgPool: migrationPool, logger: silentWorkerLogger }).finally(() =>
      migrationPool.end(),
    );
    progress(
      `migrations  ${migrations.applied.length ? `applied ${migrations.applied.join(', ')}` : 'database is up to date'}`,
    );
    for (const name of migrations.modified)
      log.warn({ migration: name }, 'applied migration was modified since');

    // pool.end() does not wait for its connections' goodbyes: a database stopped right after may
    // still cut them, which is no loss once the pool is ending.
    let poolEnding = false;
    const { prisma, pool } = connectDatabase(databaseUrl, config.databasePoolSize, (error) => {
      if (!poolEnding) log.warn({ err: error }, 'idle database connection lost');
    });
    onStop('database pool', () => {
      poolEnding = true;
      return pool.end();
    });
    onStop('prisma', () => prisma.$disconnect());

    const chains = new ChainRegistry(config.chains, config.rpcTimeoutMs);
    onStop('chain providers', async () => chains.destroy());
    // A pending transaction is only dropped once the node has not known it for the drop delay.
    const reconcile = { prisma, chains, log, inFlightMs: config.transactions.dropAfterSeconds * 1000 };
    if (wantsLocalChain(config)) {
      const deployerOn = (chain: Chain) =>
        HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").connect(chain.provider);
      const anvil = await startAnvil({
        stateFile: anvilStateFile,
        log: (line) => log.debug({ anvil: line }),
        supervise: true,
        report,
        // A restarted anvil reloads its state file; Laurel's contracts are redeployed if it lacked them.
        onRestart: async () => {
          const local = chains.get('local');
          await ensureLaurelDeployed(local.provider, deployerOn(local));
          await reconcileChain(reconcile, local);
        },
      });
      onStop('anvil', () => anvil.stop());
      const local = chains.add({
        name: 'local',
        chainId: anvil.chainId,
        rpcUrl: anvil.rpcUrl,
        explorerUrl: LOCAL_EXPLORER_URL,
        factoryAddress: '0x0000000000000000000000000000000000000000',
        confirmations: 1,
      });
      const { factory } = await ensureLaurelDeployed(local.provider, deployerOn(local));
      local.factoryAddress = factory;
      progress(`chain       local (chain id ${anvil.chainId}) anvil on ${anvil.rpcUrl}, factory ${factory}`);
    }
    for (const chain of config.chains) {
      progress(`chain       ${chain.name} (chain id ${chain.chainId}) ${new URL(chain.rpcUrl).host}`);
    }

    await reconcileAllChains(reconcile);

    const encryption = await resolveWebhookEncryptionKey(config);
    if (encryption.source === 'generated') {
      progress(`webhooks    generated the secret encryption key in ${config.dataDir}`);
    }
    const developmentCa = config.webhooks.trustDevelopmentCa
      ? await ensureDevelopmentCa(config.dataDir)
      : null;
    if (developmentCa) {
      const folder = path.dirname(developmentCaFiles(config.dataDir).cert);
      const privateAddresses = config.webhooks.allowPrivateNetworks ? 'private addresses allowed, ' : '';
      progress(
        `webhooks    development setup: ${privateAddresses}development CA in ${folder} trusted` +
          (developmentCa.created ? ' (created)' : ''),
      );
    }
    const webhookClient = await WebhookHttpClient.create({
      allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
      userAgent: `Laurel-Webhooks/${LAUREL_VERSION}`,
      extraCaCertificates: developmentCa ? [developmentCa.pair.cert] : [],
    });
    onStop('webhook client', async () => webhookClient.destroy());
    const secrets = new WebhookSecrets(prisma, new WebhookSecretBox(encryption.key));
    const deliverer = new WebhookDeliverer({
      prisma,
      store: new WebhookDeliveryStore(pool),
      secrets,
      client: webhookClient,
      config: config.webhooks,
    });
    const indexer = new Indexer({
      databaseUrl,
      chains: chains.list(),
      log: log.child({ component: 'indexer' }),
      ...config.indexer,
    });
    // Every process can ingest its own receipts (read-your-writes); only the `indexer` role follows the chains.
    if (config.roles.has('indexer')) {
      indexer.start();
      progress(
        `indexer     following ${
          chains
            .list()
            .map((chain) => chain.name)
            .join(', ') || 'no chain'
        }`,
      );
    }
    onStop('indexer', () => indexer.stop());
    // The API's cached profiles and leaderboards are dropped when any process changes the index.
    if (config.roles.has('api')) await indexer.changes.listen();

    const services: Services = {
      config,
      log,
      prisma,
      pool,
      chains,
      indexer,
      webhooks: { secrets, deliverer },
    };
    const modules = createModules(services);
    onStop('modules', () => modules.stop());

    progress(`roles       ${[...config.roles].join(', ')}`);
    if (config.roles.has('worker') && options.worker !== false) {
      const worker = await startJobWorker({
        databaseUrl,
        concurrency: config.workerConcurrency,
        poolSize: config.workerPoolSize,
        log: log.child({ component: 'worker' }),
        taskList: createTaskList(services),
        crontab,
      });
      // Jobs in flight may finish within the grace period; graphile-worker retries any cut short.
      onStop('worker', () => withinGrace(worker.stop(), graceMs));
      // Frees delivery jobs left locked by a worker that died mid-call (see the task).
      await enqueueJob(prisma, jobs.recoverDeliveries, {}, { jobKey: jobs.recoverDeliveries.name });
      progress(`worker      graphile-worker, concurrency ${config.workerConcurrency}`);
    }

    // The GraphQL schema and the OpenAPI document only where the API is served.
    const schema = config.roles.has('api')
      ? await buildGraphQLSchema(resolverClasses, modules.instances)
      : null;
    const http = await createHttpApp({
      log,
      trustProxy: config.http.trustProxy,
      api: schema
        ? {
            schema,
            openApiDocument: buildOpenApiDocument(laurelModules, schema, LAUREL_VERSION),
            authenticator: modules.authenticator,
            mountRoot: modules.mountRoot,
            mountApi: modules.mountApi,
          }
        : undefined,
      // Names what fails, never why: /ready needs no key, and errors carry internal addresses.
      readiness: async () => {
        if (draining) return { ready: false, failing: ['shutting down'], checks: {} };
        const databaseOk = await prisma.$queryRaw`SELECT 1`.then(
          () => true,
          () => false,
        );
        const chainChecks = (await chains.checkAll()).map(({ name, ok }) => ({ name, ok }));
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
    onStop('graphql', () => http.stop());
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
    onStop('http server', async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await withinGrace(closed, graceMs);
      server.closeAllConnections();
      await closed;
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    progress(`http        listening on ${url}`);
    return { url, services, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
