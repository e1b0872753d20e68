import type { Config } from '../../config';
import type { Logger } from '../../logger';
import type { LaurelMetrics } from '../../metrics';
import { retryDelayMs } from '../webhooks/webhook-retry-schedule';
import { isImmutableUri, type BadgeMetadataFetcher } from './badge-metadata-fetcher';
import type { BadgeMetadataRepository, NextAttempt } from './badge-metadata.repository';

/** Characters of a URI written to a log line (a URI on chain may be long). */
const LOGGED_URI_LENGTH = 256;

export interface BadgeMetadataRefresherDeps {
  repository: BadgeMetadataRepository;
  fetcher: BadgeMetadataFetcher;
  config: Config['badgeMetadata'];
  metrics: LaurelMetrics | null;
  log: Logger;
}

/**
 * Keeps the metadata of badge URIs: each badge_metadata__fetch job is one attempt. A document is
 * stored and, for an `https://` URI, refreshed after BADGE_METADATA_REFRESH_SECONDS (an `ipfs://`
 * URI names content that never changes). A failure is stored with its reason (a document fetched
 * before stays answered); one that may pass is retried up to BADGE_METADATA_RETRIES times with
 * backoff, any other waits for the refresh. A URI no indexed badge names any more is forgotten.
 */
export class BadgeMetadataRefresher {
  constructor(private readonly deps: BadgeMetadataRefresherDeps) {}

  async attempt(uri: string, attempt: number): Promise<void> {
    const { repository, fetcher, config, metrics } = this.deps;
    if (await repository.forgetUnused(uri)) return;
    const result = await fetcher.fetch(uri);
    metrics?.badgeMetadataFetches.inc({ outcome: result.ok ? 'fetched' : result.kind });
    const log = this.deps.log.child({ uri: uri.slice(0, LOGGED_URI_LENGTH), attempt });
    const refresh: NextAttempt = { attempt: 1, runAt: new Date(Date.now() + config.refreshSeconds * 1000) };
    if (result.ok) {
      log.debug('badge metadata fetched');
      await repository.recordDocument(uri, result.document, isImmutableUri(uri) ? null : refresh);
      return;
    }
    const retry = result.retryable && attempt <= config.retries;
    log.info(
      { reason: result.reason, retry },
      retry ? 'badge metadata fetch failed; retrying later' : 'badge metadata fetch failed',
    );
    const next = retry
      ? {
          attempt: attempt + 1,
          runAt: new Date(Date.now() + retryDelayMs(attempt, config.retryBaseMs, result.retryAfterSeconds)),
        }
      : refresh;
    await repository.recordFailure(uri, result.reason, next);
  }
}
