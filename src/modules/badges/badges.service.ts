import { getAddress } from 'ethers';
import { appInterface, badgeInterface } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { TransactionBuilder, UnsignedTransactionJson } from '../../chain/transaction-builder';
import { viewCall } from '../../chain/view-call';
import type { AppsService } from '../apps/apps.service';
import type { CreateBadgeInput, ListBadgesInput } from './badges.schema';

export interface BadgeSummary {
  id: string;
  name: string;
  /** The badge's base URI, null when it has none. */
  metadataURI: string | null;
}

export interface BadgesServiceDeps {
  chains: ChainRegistry;
  builder: TransactionBuilder;
  apps: AppsService;
}

/**
 * Badges are ERC-721 collections an app creates (App.createBadge) and lists (App.badges()). A
 * badge's name and base URI never change: cached in memory once read.
 */
export class BadgesService {
  private readonly facts = new Map<string, BadgeSummary>();

  constructor(private readonly deps: BadgesServiceDeps) {}

  /** The unsigned App.createBadge(name, baseURI) transaction. */
  async createBadge(input: CreateBadgeInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    await this.deps.apps.requireApp(chain, input.app_id);
    return this.deps.builder.build({
      chain,
      from: sender,
      to: input.app_id,
      data: appInterface.encodeFunctionData('createBadge', [input.badge_name, input.base_uri ?? '']),
      functionName: 'createBadge',
      contractInterface: appInterface,
      includeGas: false,
    });
  }

  async listBadges(input: ListBadgesInput): Promise<BadgeSummary[]> {
    const chain = this.deps.chains.get(input.chain);
    return this.badgesOf(chain, input.app_id);
  }

  /** An app's badges in creation order; AppNotFoundError for an unknown app. */
  async badgesOf(chain: Chain, appId: string): Promise<BadgeSummary[]> {
    await this.deps.apps.requireApp(chain, appId);
    return this.deps.chains.call(chain, async (provider) => {
      const badges = await viewCall<string[]>(provider, appInterface, appId, 'badges');
      return Promise.all(
        badges.map(async (badge) => {
          const id = getAddress(badge);
          const key = `${chain.chainId}:${id}`;
          const cached = this.facts.get(key);
          if (cached) return cached;
          const [name, baseURI] = await Promise.all([
            viewCall<string>(provider, badgeInterface, id, 'name'),
            viewCall<string>(provider, badgeInterface, id, 'baseURI'),
          ]);
          const summary = { id, name, metadataURI: baseURI === '' ? null : baseURI };
          this.facts.set(key, summary);
          return summary;
        }),
      );
    });
  }
}
