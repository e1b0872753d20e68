import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { isDatabaseUnavailable } from './db/availability';
import { createLogger, ThrottledLog } from './logger';
import { startLaurel } from './server/laurel';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`laurel: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger(config.logLevel, {
    secrets: config.chains.flatMap((chain) => chain.rpcUrls.map((endpoint) => endpoint.url)),
    pretty: config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true),
  });
  // graphile-worker 0.17 records a job's completion or failure without awaiting it: while the
  // database is gone that promise rejects unhandled, which would end the process. Such a job stays
  // locked and is retried later; Laurel stays up (and says so once per interval). Any other
  // unhandled rejection still ends the process, as Node does by default.
  const faults = new ThrottledLog(log);
  process.on('unhandledRejection', (reason) => {
    if (!isDatabaseUnavailable(reason)) throw reason;
    faults.write(
      'warn',
      'database_unavailable',
      { err: String(reason) },
      'database unavailable in the job worker',
    );
  });
  const started = Date.now();
  const laurel = await startLaurel(config, { log, progress: (line) => console.log(`laurel: ${line}`) });
  const chains = laurel.services.chains.list().map((chain) => `${chain.name} (${chain.chainId})`);
  console.log(`laurel: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (config.roles.has('api')) {
    console.log(
      `  REST     ${laurel.url}/v1   (also ${laurel.url}/api/v1; API keys at ${laurel.url}/key/challenge)`,
    );
    console.log(`  GraphQL  ${laurel.url}/graphql   (Playground in a browser)`);
    console.log(`  docs     ${laurel.url}/docs   (API reference; ${laurel.url}/openapi.json)`);
  }
  console.log(`  health   ${laurel.url}/health   (readiness: ${laurel.url}/ready)`);
  console.log(`  chains   ${chains.length ? chains.join(', ') : 'none'}`);

  // Ctrl-C under `npm start` delivers SIGINT twice (the terminal's, and npm forwarding it): a
  // repeated signal forces the exit only when it comes well after the first.
  let stoppingSince: number | null = null;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stoppingSince !== null) {
      if (Date.now() - stoppingSince < 2000) return;
      console.log(`laurel: ${signal} again, exiting now`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    console.log(`laurel: ${signal} received, stopping`);
    laurel.stop().then(
      () => {
        console.log('laurel: stopped');
        process.exit(0);
      },
      (error: unknown) => {
        console.error('laurel: error while stopping', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGHUP', shutdown);
}

main().catch((error: unknown) => {
  // What has started was stopped by startLaurel; nothing must keep a failed start alive.
  console.error('laurel: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
