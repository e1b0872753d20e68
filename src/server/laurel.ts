import 'reflect-metadata';
import type { ChainEvents } from '../chain/chain-events';
import { installWasmKeccak } from '../chain/keccak';
import { wantsLocalChain, type Config } from '../config';
import type { SupervisorReport } from '../embedded/supervisor';
import { NotificationSession } from '../db/notifications';
import { EventHub } from '../event-hub';
import { limitHeapGrowth } from '../heap-growth';
import { Indexer } from '../indexer/indexer';
import { IndexReader } from '../indexer/read/index-reader';
import { combineTaskDeps, taskNames, type TaskDeps } from '../jobs/tasks';
import type { Logger } from '../logger';
import { LaurelMetrics } from '../metrics';
import { createModules, type Modules, type Services } from '../modules';
import { startBadgeMetadataClient } from './badge-metadata';
import { bindHttpPorts, type HttpPorts } from './http-ports';
import { serveHttp } from './http-server';
import { startChains } from './chains';
import { startInfrastructure } from './infrastructure';
import { Lifecycle } from './lifecycle';
import { observeDatabaseState, observeIndexer } from './metrics';
import { startWebhookInfrastructure } from './webhooks';
import { startWorkerRole } from './worker-role';

export interface Laurel {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  /** What the modules are built from (database, chains, index). */
  services: Services;
  modules: Modules;
  /** What the job tasks call (tests run jobs with them). */
  tasks: TaskDeps;
  /** The process's metrics (null with METRICS=off). */
  metrics: LaurelMetrics | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  log: Logger;
  /** One short line per start-up step (the console in `npm start`, nothing in tests). */
  progress?: (line: string) => void;
  /** Start the job worker (default true). */
  worker?: boolean;
  /** PORT (and METRICS_PORT) already bound by the caller (main.ts binds them before loading Laurel). */
  ports?: HttpPorts;
  /** Aborted when a stop is asked for during the start: what would wait without end gives up. */
  stopping?: AbortSignal;
}

/**
 * Starts Laurel, in this order: its ports (a taken port fails the start at once), infrastructure
 * (data folder, database, migrations, pool), chains
 * (the embedded `local` anvil when no chain is configured), the index (its followers with the
 * `indexer` role), webhook infrastructure, the modules, the job worker (`worker` role) and the
 * HTTP server (the API with the `api` role; health and readiness always). `stop()` undoes all of
 * it in reverse order; a failure half-way stops what had started.
 */
export async function startLaurel(config: Config, options: StartOptions): Promise<Laurel> {
  limitHeapGrowth();
  await installWasmKeccak();
  const { log } = options;
  const progress = options.progress ?? (() => undefined);
  const lifecycle = new Lifecycle(log, {
    graceMs: config.shutdownGraceSeconds * 1000,
    answerMarginMs: config.shutdownAnswerMarginMs,
  });
  const supervisorLog = log.child({ component: 'supervisor' });
  const report: SupervisorReport = (level, message) => supervisorLog[level](message);

  try {
    const ports = options.ports ?? (await bindHttpPorts(config));
    lifecycle.onStop('http ports', () => ports.close());
    const metrics = config.metrics.enabled ? new LaurelMetrics() : null;
    const { sessionUrl, prisma, pool, reads } = await startInfrastructure(
      config,
      lifecycle,
      log,
      report,
      progress,
      options.stopping,
    );
    metrics?.watchPool('main', pool);
    // Chain restarts and reorganisations: the chains and the indexer publish, the modules subscribe.
    const events = new EventHub<ChainEvents>();
    const chains = await startChains(config, lifecycle, log, metrics, report, progress, events);

    // One LISTEN session: index commits and transaction statuses of every process.
    const notifications = new NotificationSession(sessionUrl, log.child({ component: 'notifications' }));
    lifecycle.onStop('notifications', () => notifications.stop());
    const indexer = new Indexer({
      sessionUrl,
      notifications,
      chains: chains.list(),
      log: log.child({ component: 'indexer' }),
      ...config.indexer,
      text: config.chainText,
      metrics,
      events,
    });
    lifecycle.onStop('indexer', () => indexer.stop());
    // The embedded chain was loaded from its saved state, which may end below what was indexed.
    if (wantsLocalChain(config)) indexer.chainRestarted(chains.get('local'));
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
    // The API's cached reads are dropped when any process changes the index, and its reads go to
    // a replica only once it has replayed every change heard of; its subscriptions are pushed what
    // any process changed.
    if (config.roles.has('api')) reads.follow(indexer.changes);

    const services: Services = {
      config,
      log,
      prisma,
      pool,
      chains,
      events,
      indexer,
      index: new IndexReader(reads, indexer.changes, config.readCacheBytes, metrics),
      metrics,
      notifications,
      webhooks: await startWebhookInfrastructure(config, lifecycle, progress),
      badgeMetadataClient: await startBadgeMetadataClient(config, lifecycle),
      answerNow: lifecycle.answerNow,
    };
    const modules = createModules(services);
    // Listens once every module registered its channels.
    if (config.roles.has('api')) await notifications.listen();
    // After the HTTP drain and the worker, before the chains and the pools: broadcasts under way
    // end (recorded and sent, or un-recorded) while their pools still serve them.
    lifecycle.onStop('modules', () => modules.stop());
    // Each module's own start: the transactions module reconciles what it recorded with the chains.
    await modules.start();

    const tasks = combineTaskDeps([...modules.tasks, { housekeeping: [indexer] }]);
    if (metrics) {
      metrics.watchPool('indexer', indexer.pool);
      observeIndexer(metrics, indexer);
      if (reads.serving) {
        metrics.observe(metrics.readReplicaCurrent, () =>
          reads
            .status()
            .map(({ name, state }) => ({ labels: { replica: name }, value: state === 'current' ? 1 : 0 })),
        );
        metrics.observe(metrics.readReplicaLagBytes, () =>
          reads
            .status()
            .flatMap(({ name, lagBytes }) =>
              lagBytes === null ? [] : [{ labels: { replica: name }, value: lagBytes }],
            ),
        );
      }
      observeDatabaseState(metrics, {
        prisma,
        chains,
        tasks: taskNames(),
      });
    }
    progress(`roles       ${[...config.roles].join(', ')}`);
    if (config.roles.has('worker') && options.worker !== false) {
      await startWorkerRole(config, lifecycle, { sessionUrl, prisma, log, tasks, metrics }, progress);
    }

    await serveHttp(config, lifecycle, ports, {
      log,
      prisma,
      chains,
      indexer,
      reads,
      metrics,
      api: config.roles.has('api') ? modules : null,
    });
    const { url } = ports.main;
    progress(`http        listening on ${url}`);
    if (ports.metrics) progress(`metrics     ${ports.metrics.url}/metrics`);
    return { url, services, modules, tasks, metrics, stop: () => lifecycle.stop() };
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
}
