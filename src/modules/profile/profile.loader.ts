import DataLoader from 'dataloader';
import type { Chain } from '../../chain/registry';
import type { RequestContext } from '../../context';
import type { ProfileService, UserProfile } from './profile.service';

/**
 * Profiles asked for one by one within a request (e.g. a GraphQL leaderboard's entries) loaded
 * together: one batch per request, chain and app, whatever the number of users.
 */
export class ProfileLoaders {
  private readonly byRequest = new WeakMap<RequestContext, Map<string, DataLoader<string, UserProfile>>>();

  constructor(private readonly profiles: ProfileService) {}

  load(ctx: RequestContext, chain: Chain, appId: string | undefined, user: string): Promise<UserProfile> {
    let loaders = this.byRequest.get(ctx);
    if (!loaders) {
      loaders = new Map();
      this.byRequest.set(ctx, loaders);
    }
    const key = `${chain.name}\n${appId ?? ''}`;
    let loader = loaders.get(key);
    if (!loader) {
      loader = new DataLoader((users: readonly string[]) => this.profiles.profiles(chain, appId, users));
      loaders.set(key, loader);
    }
    return loader.load(user);
  }
}
