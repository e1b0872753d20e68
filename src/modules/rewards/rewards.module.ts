import { appsModule } from '../apps/apps.module';
import { badgesModule } from '../badges/badges.module';
import { defineModule } from '../module';
import { RewardsResolver } from './rewards.resolver';
import { rewardsRoutes } from './rewards.routes';
import { RewardsService } from './rewards.service';

/** Rewards for a user's action: XP, badges, credit and point tokens. */
export const rewardsModule = defineModule({
  name: 'rewards',
  service: ({ config, chains, tokens, serviceOf }) =>
    new RewardsService({
      chains,
      tokens,
      apps: serviceOf(appsModule),
      badges: serviceOf(badgesModule),
      batchMaxItems: config.transactions.rewardBatchMaxItems,
    }),
  resolver: RewardsResolver,
  routes: rewardsRoutes,
});
