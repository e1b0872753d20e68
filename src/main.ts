// First: with OTEL_EXPORTER_OTLP_ENDPOINT set, tracing must patch http, express, pg… before they load.
import { flushTraces } from './tracing';
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { isDatabaseUnavailable } from './db/availability';
import { createLogger, ThrottledLog, type Logger } from './logger';
import { bindHttpPorts } from './server/http-ports';
// The rest of Laurel (Apollo, Prisma, ethers…) loads after the ports are bound: see main().
type LaurelModule = typeof import('./server/laurel');

/**
 * Where the start-up and stop lines go. On a terminal: plain lines, in order with the logger's
 * (which writes each line as it is logged). Otherwise (a pipe, a file, a log collector): through the
 * logger as JSON lines, so the two never interleave.
 */
function consoleOf(log: Logger, terminal: boolean): (line: string) => void {
  if (terminal) return (line) => console.log(line);
  // Written whatever LOG_LEVEL says: these lines are the console, not diagnostics.
  const lines = log.child({}, { level: 'info' });
  return (line) => lines.info(line);
}

/** Sends the spans the tracer holds, then exits (the logger has written every line: logger.ts). */
function exitAfterTraces(code: number): void {
  void flushTraces()
    .catch(() => undefined)
    .finally(() => process.exit(code));
}

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
  const pretty =
    config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  const log = createLogger(config.logLevel, {
    secrets: config.chains.flatMap((chain) => chain.rpcUrls.map((endpoint) => endpoint.url)),
    pretty,
  });
  const say = consoleOf(log, pretty);
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

  // Ctrl-C under `npm start` delivers SIGINT twice (the terminal's, and npm forwarding it): a
  // repeated signal forces the exit only when it comes well after the first.
  let laurel: Awaited<ReturnType<LaurelModule['startLaurel']>> | null = null;
  let stoppingSince: number | null = null;
  const starting = new AbortController();
  const stopLaurel = (running: NonNullable<typeof laurel>) =>
    running.stop().then(
      () => {
        say('laurel: stopped');
        exitAfterTraces(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'laurel: error while stopping');
        exitAfterTraces(1);
      },
    );
  const shutdown = (signal: NodeJS.Signals) => {
    if (stoppingSince !== null) {
      if (Date.now() - stoppingSince < 2000) return;
      say(`laurel: ${signal} again, exiting now`);
      exitAfterTraces(1);
      return;
    }
    stoppingSince = Date.now();
    say(`laurel: ${signal} received, stopping`);
    // During the start, the stop comes once the start is done (see below); a start waiting
    // without end (a migration behind a lock) gives up instead.
    if (laurel) void stopLaurel(laurel);
    else starting.abort();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGHUP', shutdown);

  const started = Date.now();
  // A taken port fails here, within a moment of the command, before anything is loaded or started.
  const ports = await bindHttpPorts(config);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startLaurel } = require('./server/laurel') as LaurelModule;
  const running = await startLaurel(config, {
    log,
    ports,
    progress: (line) => say(`laurel: ${line}`),
    stopping: starting.signal,
  }).catch((error: unknown) => {
    // Stopped while its start waited: what had started was stopped, as asked.
    if (!starting.signal.aborted) throw error;
    return null;
  });
  if (!running) {
    say('laurel: stopped during the start');
    exitAfterTraces(0);
    return;
  }
  laurel = running;
  if (stoppingSince !== null) {
    await stopLaurel(running);
    return;
  }
  const chains = running.services.chains.list().map((chain) => `${chain.name} (${chain.chainId})`);
  say(`laurel: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(`  home     ${running.url}/   (links to everything below)`);
  if (config.roles.has('api')) {
    say(
      `  REST     ${running.url}/v1   (also ${running.url}/api/v1; API keys at ${running.url}/key/challenge)`,
    );
    say(`  GraphQL  ${running.url}/graphql   (Playground in a browser)`);
    say(`  docs     ${running.url}/docs   (API reference; ${running.url}/openapi.json)`);
  }
  say(`  health   ${running.url}/health   (readiness: ${running.url}/ready)`);
  say(`  chains   ${chains.length ? chains.join(', ') : 'none'}`);
}

main().catch((error: unknown) => {
  // What has started was stopped by startLaurel; nothing must keep a failed start alive.
  console.error('laurel: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
