import { checksumAddress } from '../../addresses';
import { toBaseUnits } from '../../chain/amounts';
import { encodeActionId, XP_DECIMALS } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { TokenDirectory, TokenInfo } from '../../chain/tokens';
import type { UnsignedTransactionJson } from '../../chain/unsigned-transactions';
import type { AppsService } from '../apps/apps.service';
import type { BadgesService } from '../badges/badges.service';
import { TokenNotFoundError } from '../credit/credit.service';
import type { RewardBadgeInput, RewardCreditInput, RewardPointInput, RewardXPInput } from './rewards.schema';

export interface RewardsServiceDeps {
  chains: ChainRegistry;
  tokens: TokenDirectory;
  apps: AppsService;
  badges: BadgesService;
}

/**
 * Builds the reward transactions of an app (App.rewardXP, rewardBadge, rewardCredit, rewardPoint,
 * transferERC20). The sender must be the app's owner or an operator: otherwise the simulation
 * reverts with NotOperator and the build answers a transaction_error.
 */
export class RewardsService {
  constructor(private readonly deps: RewardsServiceDeps) {}

  async rewardXP(input: RewardXPInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const amount = toBaseUnits(input.amount, XP_DECIMALS, 'amount');
    return this.deps.apps.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: 'rewardXP',
      args: [input.receiver, amount, encodeActionId(input.action_id)],
    });
  }

  async rewardBadge(input: RewardBadgeInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const badge = await this.deps.badges.findBadge(chain, input.app_id, input);
    return this.deps.apps.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: 'rewardBadge',
      args: [
        badge.id,
        input.receiver,
        BigInt(input.amount),
        input.base_uri ?? '',
        encodeActionId(input.action_id),
      ],
    });
  }

  /** mint false: App.transferERC20 (from the sender, needs its allowance for the app); true: App.rewardCredit. */
  async rewardCredit(input: RewardCreditInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.appToken(chain, input.app_id, input.token_address);
    if (!token || token.isPoint) {
      throw new TokenNotFoundError('No credit token found with this address in this app');
    }
    const args = [
      token.address,
      input.receiver,
      toBaseUnits(input.amount, token.decimals, 'amount'),
      encodeActionId(input.action_id),
    ] as const;
    return this.deps.apps.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: input.mint ? 'rewardCredit' : 'transferERC20',
      args,
    });
  }

  async rewardPoint(input: RewardPointInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.appToken(chain, input.app_id, input.token_address);
    if (!token || !token.isPoint) {
      throw new TokenNotFoundError('No token found: the address is not a point token of this app');
    }
    return this.deps.apps.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: 'rewardPoint',
      args: [
        token.address,
        input.receiver,
        toBaseUnits(input.amount, token.decimals, 'amount'),
        encodeActionId(input.action_id),
      ],
    });
  }

  /** The token when it is a Laurel credit/point token of the app; AppNotFoundError for an unknown app. */
  private async appToken(chain: Chain, appId: string, tokenAddress: string): Promise<TokenInfo | null> {
    const [, token] = await Promise.all([
      this.deps.apps.requireApp(chain, appId),
      this.deps.tokens.get(chain, tokenAddress),
    ]);
    return token && token.app === checksumAddress(appId) ? token : null;
  }
}
