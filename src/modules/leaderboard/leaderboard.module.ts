import { appsModule } from '../apps/apps.module';
import { defineModule } from '../module';
import { profileModule } from '../profile/profile.module';
import { LeaderboardResolver } from './leaderboard.resolver';
import { leaderboardRoutes } from './leaderboard.routes';
import { LeaderboardService } from './leaderboard.service';

/** Leaderboards read from the index, with each entry's profile for GraphQL. */
export const leaderboardModule = defineModule({
  name: 'leaderboard',
  service: ({ chains, index, serviceOf }) =>
    new LeaderboardService({
      chains,
      index,
      apps: serviceOf(appsModule),
      profiles: serviceOf(profileModule),
    }),
  resolver: LeaderboardResolver,
  routes: leaderboardRoutes,
});
