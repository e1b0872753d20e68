/**
 * Laurel's configuration: every environment variable it reads, by section (src/config/), parsed
 * into one Config. Each variable's `.describe()` is its documentation: docs/configuration.md is
 * generated from them (`npm run docs:config`), in the order of the sections here, and a test fails
 * when it drifts.
 */
import { z } from 'zod';
import { authConfig, authVariables, type AuthConfig } from './config/auth';
import {
  badgeMetadataConfig,
  badgeMetadataVariables,
  type BadgeMetadataConfig,
} from './config/badge-metadata';
import { chainsConfig, chainsVariables, wantsLocalChain, type ChainsConfig } from './config/chains';
import { databaseConfig, databaseVariables, type DatabaseConfig } from './config/database';
import { indexerConfig, indexerVariables, type IndexerConfig } from './config/indexer';
import {
  observabilityConfig,
  observabilityVariables,
  type ObservabilityConfig,
} from './config/observability';
import { outboundConfig, outboundVariables, type OutboundConfig } from './config/outbound-calls';
import { processConfig, processVariables, type ProcessConfig } from './config/process';
import { readsConfig, readsVariables, type ReadsConfig } from './config/reads';
import { serverConfig, serverVariables, type ServerConfig } from './config/server';
import { transactionsConfig, transactionsVariables, type TransactionsConfig } from './config/transactions';
import { ConfigError, describeIssues } from './config/values';
import { webhooksConfig, webhooksVariables, type WebhooksConfig } from './config/webhooks';

export { chainConfigSchema, chainEntrySchema, wantsLocalChain } from './config/chains';
export type { ChainConfig, ChainEntry } from './config/chains';
export type { PoolerMode } from './config/database';
export { DEFAULT_WORKER_CONCURRENCY, type LaurelRole } from './config/process';
export { isLoopbackHost } from './config/server';
export { ConfigError } from './config/values';

/** Every environment variable Laurel reads. */
export const envSchema = z.object({
  ...serverVariables,
  ...databaseVariables,
  ...processVariables,
  ...chainsVariables,
  ...authVariables,
  ...transactionsVariables,
  ...webhooksVariables,
  ...outboundVariables,
  ...badgeMetadataVariables,
  ...indexerVariables,
  ...readsVariables,
  ...observabilityVariables,
});

export type Config = ServerConfig &
  DatabaseConfig &
  ProcessConfig &
  ChainsConfig &
  AuthConfig &
  TransactionsConfig &
  WebhooksConfig &
  OutboundConfig &
  BadgeMetadataConfig &
  IndexerConfig &
  ReadsConfig &
  ObservabilityConfig;

/** Reads and validates the environment; throws a ConfigError naming the offending variable. */
export function loadConfig(rawEnv: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  // An empty variable counts as unset, as shells and orchestrators commonly write them.
  const env = Object.fromEntries(
    Object.entries(rawEnv).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${describeIssues(parsed.error)}`);
  const e = parsed.data;
  const database = databaseConfig(e);
  // One key must never be able to hold every connection of the process.
  if (e.WEBSOCKETS_PER_KEY >= e.HTTP_MAX_CONNECTIONS) {
    throw new ConfigError(
      'Invalid configuration: WEBSOCKETS_PER_KEY: must be less than HTTP_MAX_CONNECTIONS (one key cannot hold every connection)',
    );
  }
  const chains = chainsConfig(e, cwd);
  // Laurel on its own local chain, no chain list given: a developer's machine, not a deployment.
  const setup = { developmentSetup: !chains.listGiven && wantsLocalChain(chains), host: e.HOST };
  return {
    ...serverConfig(e),
    ...database,
    ...processConfig(e, cwd),
    ...chains,
    ...authConfig(e),
    ...transactionsConfig(e),
    ...webhooksConfig(e, setup),
    ...outboundConfig(e),
    ...badgeMetadataConfig(e, setup),
    ...indexerConfig(e),
    ...readsConfig(e),
    ...observabilityConfig(e),
  };
}
