import 'reflect-metadata';
import type { Server } from 'node:http';
import path from 'node:path';
import { HDNodeWallet } from 'ethers';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { ChainRegistry, LOCAL_EXPLORER_URL } from './chain/registry';
import { wantsLocalChain, type Config } from './config';
import { createPrismaClient } from './db/prisma';
import { migrate } from './db/migrator';
import { ANVIL_MNEMONIC, startAnvil } from './embedded/anvil';
import { startEmbeddedPostgres } from './embedded/postgres';
import { ensureLaurelDeployed } from './chain/deploy';
import { buildGraphQLSchema } from './graphql/schema';
import { createHttpApp } from './http/app';
import { createTaskList, crontab } from './jobs/tasks';
import { startJobWorker } from './jobs/worker';
import type { Logger } from './logger';
import { Indexer } from './indexer/indexer';
import { createModules, resolverClasses, type Services } from './modules';

const silentWorkerLogger = new WorkerLogger(() => () => undefined);

export interface Laurel {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  services: Services;
  stop(): Promise<void>;
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
  const { log } = options;
  const progress = options.progress ?? (() => undefined);
  // What has started, to be stopped in reverse order.
  const stops: { name: string; run: () => Promise<void> }[] = [];
  const onStop = (name: string, run: () => Promise<void>) => stops.push({ name, run });
  const stop = async () => {
    for (const step of stops.reverse()) {
      log.debug({ step: step.name }, 'stopping');
      await step
        .run()
        .catch((error: unknown) => log.error({ err: error, step: step.name }, 'error while stopping'));
    }
    stops.length = 0;
  };

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const postgres = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        database: 'laurel',
        log: (line) => log.debug({ postgres: line }),
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
    await runWorkerMigrations({ connectionString: databaseUrl, logger: silentWorkerLogger });
    progress(
      `migrations  ${migrations.applied.length ? `applied ${migrations.applied.join(', ')}` : 'database is up to date'}`,
    );
    for (const name of migrations.modified)
      log.warn({ migration: name }, 'applied migration was modified since');

    const prisma = createPrismaClient(databaseUrl);
    onStop('prisma', () => prisma.$disconnect());

    const chains = new ChainRegistry(config.chains, config.rpcTimeoutMs);
    onStop('chain providers', async () => chains.destroy());
    if (wantsLocalChain(config)) {
      const anvil = await startAnvil({
        stateFile: path.join(config.dataDir, 'anvil', 'state.json'),
        log: (line) => log.debug({ anvil: line }),
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
      const deployer = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").connect(
        local.provider,
      );
      const { factory } = await ensureLaurelDeployed(local.provider, deployer);
      local.factoryAddress = factory;
      progress(`chain       local (chain id ${anvil.chainId}) anvil on ${anvil.rpcUrl}, factory ${factory}`);
    }
    for (const chain of config.chains) {
      progress(`chain       ${chain.name} (chain id ${chain.chainId}) ${new URL(chain.rpcUrl).host}`);
    }

    const indexer = new Indexer({
      databaseUrl,
      chains: chains.list(),
      log: log.child({ component: 'indexer' }),
      ...config.indexer,
    });
    indexer.start();
    onStop('indexer', () => indexer.stop());

    const services: Services = { config, log, prisma, chains, indexer };
    const modules = createModules(services);

    if (options.worker !== false) {
      const worker = await startJobWorker({
        databaseUrl,
        concurrency: config.workerConcurrency,
        log: log.child({ component: 'worker' }),
        taskList: createTaskList(services),
        crontab,
      });
      onStop('worker', () => worker.stop());
      progress(`worker      graphile-worker, concurrency ${config.workerConcurrency}`);
    }

    const schema = await buildGraphQLSchema(resolverClasses, modules.instances);
    const http = await createHttpApp({
      log,
      schema,
      authenticator: modules.authenticator,
      mountRoot: modules.mountRoot,
      mountApi: modules.mountApi,
      readiness: async () => {
        const database = await prisma.$queryRaw`SELECT 1`.then(
          () => ({ ok: true }),
          (error: Error) => ({ ok: false, error: error.message }),
        );
        const chainChecks = await chains.checkAll();
        return {
          ready: database.ok && chainChecks.every((check) => check.ok),
          checks: { database, chains: chainChecks, indexer: indexer.status() },
        };
      },
    });
    onStop('graphql', () => http.stop());
    const server: Server = await new Promise((resolve, reject) => {
      const listening = http.app.listen(config.port, config.host, () => resolve(listening));
      listening.once('error', reject);
    });
    onStop(
      'http server',
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
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
