import { defineModule } from '../module';
import { profileModule } from '../profile/profile.module';
import { LeaderboardResolver } from './leaderboard.resolver';
import { leaderboardRoutes } from './leaderboard.routes';
import { LeaderboardService } from './leaderboard.service';

/** Leaderboards read from the index, with each entry's profile for GraphQL. */
export const leaderboardModule = defineModule({
  name: 'leaderboard',
  service: ({ pool, chains, serviceOf }) => {
    const profiles = serviceOf(profileModule);
    return new LeaderboardService({
      pool,
      chains,
      profiles,
      directory: profiles.directory,
      cache: profiles.cache,
    });
  },
  resolver: LeaderboardResolver,
  routes: leaderboardRoutes,
});
