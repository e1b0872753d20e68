import { appsModule } from '../apps/apps.module';
import { defineModule } from '../module';
import { BadgesResolver } from './badges.resolver';
import { badgesRoutes } from './badges.routes';
import { BadgesService } from './badges.service';

/** Badges: ERC-721 collections of an app; creation, listing, and the badge lookup rewards use. */
export const badgesModule = defineModule({
  name: 'badges',
  service: ({ chains, index, serviceOf }) =>
    new BadgesService({ chains, index, apps: serviceOf(appsModule) }),
  resolver: BadgesResolver,
  routes: badgesRoutes,
});
