import { IndexDirectory } from '../../indexer/index-directory';
import { IndexReadCache } from '../../indexer/index-read-cache';
import { defineModule } from '../module';
import { ProfileResolver } from './profile.resolver';
import { profileRoutes } from './profile.routes';
import { ProfileService } from './profile.service';

/** User profiles read from the index: XP, badges, completed actions, credit balances. */
export const profileModule = defineModule({
  name: 'profile',
  service: ({ pool, chains, indexer, config }) =>
    new ProfileService({
      pool,
      chains,
      directory: new IndexDirectory(pool),
      cache: new IndexReadCache(indexer.changes, config.readCacheBytes),
    }),
  resolver: ProfileResolver,
  routes: profileRoutes,
});
