import { appsModule } from '../apps/apps.module';
import { defineModule } from '../module';
import { ProfileResolver } from './profile.resolver';
import { profileRoutes } from './profile.routes';
import { ProfileService } from './profile.service';

/** User profiles read from the index: XP, badges, completed actions, credit balances. */
export const profileModule = defineModule({
  name: 'profile',
  service: ({ config, chains, index, serviceOf }) =>
    new ProfileService({
      chains,
      index,
      apps: serviceOf(appsModule),
      pushIntervalMs: config.subscriptions.pushIntervalMs,
    }),
  resolver: ProfileResolver,
  routes: profileRoutes,
});
