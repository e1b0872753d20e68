import { getAddress } from 'ethers';
import { appInterface, badgeInterface } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { UnsignedTransactionJson } from '../../chain/unsigned-transactions';
import { CacheOnSuccess } from '../../cache-on-success';
import { viewCall, viewText } from '../../chain/view-call';
import { defineFailure } from '../../errors';
import type { IndexReader } from '../../indexer/read/index-reader';
import type { ChainTextLimits } from '../../stored-text';
import type { AppsService } from '../apps/apps.service';
import type { BadgeMetadataRefresher } from './badge-metadata-refresher';
import type { CreateBadgeInput, ListBadgesInput } from './badges.schema';
import type { BadgeInfo } from './badges.types';

/** A badge as a reward names it: read from the chain (the app's badges() and each badge's views). */
export type BadgeSummary = Omit<BadgeInfo, 'holders' | 'metadata'>;

/** 404 `badge_not_found`: no badge of the app has this name or id. */
export const BADGE_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['badge_not_found'],
  description: 'No badge of the app has this `badge_name` (or `badge_id`)',
});

export class BadgeNotFoundError extends BADGE_NOT_FOUND.Error {
  constructor(by: 'name' | 'id') {
    super(`No badge found with this ${by} in this app`);
  }
}

/** 409 `too_many_badges`: several badges of the app have this name; `badges` lists them. */
export const TOO_MANY_BADGES = defineFailure({
  status: 409,
  codes: ['too_many_badges'],
  description:
    'Several badges of the app have this `badge_name`: `badges` lists them `{id, name}`; give `badge_id`',
});

export class TooManyBadgesError extends TOO_MANY_BADGES.Error {
  constructor(badges: BadgeSummary[]) {
    super('Too many badges found with this name: give badge_id instead', {
      badges: badges.map(({ id, name }) => ({ id, name })),
    });
  }
}

/** Badges whose immutable facts are kept in memory (least recently used first out). */
const BADGE_CACHE_SIZE = 10_000;

export interface BadgesServiceDeps {
  chains: ChainRegistry;
  index: IndexReader;
  apps: AppsService;
  /** Fetches and keeps the badges' metadata documents (the badge_metadata__fetch job). */
  metadata: BadgeMetadataRefresher;
  /** Names and base URIs read from the chain are kept as the index keeps them. */
  text: ChainTextLimits;
}

/**
 * Badges are ERC-721 collections an app creates (App.createBadge) and lists (App.badges()). A
 * badge's name and base URI never change: cached in memory once read.
 */
export class BadgesService {
  private readonly facts = new CacheOnSuccess<BadgeSummary>(BADGE_CACHE_SIZE);

  constructor(private readonly deps: BadgesServiceDeps) {}

  get metadata(): BadgeMetadataRefresher {
    return this.deps.metadata;
  }

  /** The unsigned App.createBadge(name, baseURI) transaction. */
  async createBadge(input: CreateBadgeInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.deps.apps.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: 'createBadge',
      args: [input.badge_name, input.base_uri ?? ''],
    });
  }

  /** An app's badges in creation order with their holder counts, from the index; AppNotFoundError for an unknown app. */
  async listBadges(input: ListBadgesInput): Promise<BadgeInfo[]> {
    const chain = this.deps.chains.get(input.chain);
    await this.deps.apps.requireApp(chain, input.app_id);
    return this.deps.index.badgesOf(chain.chainId, input.app_id);
  }

  /** The app's badge given by id or by name: BadgeNotFoundError, or TooManyBadgesError for a shared name. */
  async findBadge(
    chain: Chain,
    appId: string,
    by: { badge_id?: string; badge_name?: string },
  ): Promise<BadgeSummary> {
    const badges = await this.badgesOf(chain, appId);
    if (by.badge_id !== undefined) {
      const badge = badges.find((candidate) => candidate.id === by.badge_id);
      if (!badge) throw new BadgeNotFoundError('id');
      return badge;
    }
    const named = badges.filter((candidate) => candidate.name === by.badge_name);
    if (named.length === 0) throw new BadgeNotFoundError('name');
    if (named.length > 1) throw new TooManyBadgesError(named);
    return named[0];
  }

  /** An app's badges in creation order; AppNotFoundError for an unknown app. */
  async badgesOf(chain: Chain, appId: string): Promise<BadgeSummary[]> {
    await this.deps.apps.requireApp(chain, appId);
    return this.deps.chains.withProvider(chain, async (provider) => {
      const badges = await viewCall<string[]>(provider, appInterface, appId, 'badges');
      return Promise.all(
        badges.map((badge) => {
          const id = getAddress(badge);
          return this.facts.get(`${chain.chainId}:${id}`, async () => {
            const [name, baseURI] = await Promise.all([
              viewText(provider, badgeInterface, id, 'name', this.deps.text),
              viewText(provider, badgeInterface, id, 'baseURI', this.deps.text),
            ]);
            return { id, name, metadataURI: baseURI === '' ? null : baseURI };
          });
        }),
      );
    });
  }
}
