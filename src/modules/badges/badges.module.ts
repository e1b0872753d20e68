import { appsModule } from '../apps/apps.module';
import { defineModule } from '../module';
import { BadgeMetadataFetcher } from './badge-metadata-fetcher';
import { BadgeMetadataRefresher } from './badge-metadata-refresher';
import { BadgeMetadataRepository } from './badge-metadata.repository';
import { BadgesResolver } from './badges.resolver';
import { badgesRoutes } from './badges.routes';
import { BadgesService } from './badges.service';

/**
 * Badges: ERC-721 collections of an app; creation, listing, the badge lookup rewards use, and
 * their metadata documents (fetched by a job, answered from PostgreSQL).
 */
export const badgesModule = defineModule({
  name: 'badges',
  service: ({ chains, index, serviceOf, pool, config, badgeMetadataClient, metrics, log }) =>
    new BadgesService({
      chains,
      index,
      apps: serviceOf(appsModule),
      metadata: new BadgeMetadataRefresher({
        repository: new BadgeMetadataRepository(pool),
        fetcher: new BadgeMetadataFetcher(badgeMetadataClient, config.badgeMetadata),
        config: config.badgeMetadata,
        metrics,
        log: log.child({ component: 'badge-metadata' }),
      }),
      text: config.chainText,
    }),
  resolver: BadgesResolver,
  routes: badgesRoutes,
  tasks: (badges) => ({ badgeMetadata: badges.metadata }),
});
