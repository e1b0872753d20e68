import { getAddress } from 'ethers';
import { toBaseUnits } from '../../chain/amounts';
import { appInterface, encodeActionId } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { TokenDirectory, TokenInfo } from '../../chain/tokens';
import type { TransactionBuilder, UnsignedTransactionJson } from '../../chain/transaction-builder';
import { AppError, NotFoundError } from '../../errors';
import type { AppsService } from '../apps/apps.service';
import type { BadgesService, BadgeSummary } from '../badges/badges.service';
import type { RewardBadgeInput, RewardCreditInput, RewardPointInput, RewardXPInput } from './rewards.schema';

/** XP tokens have 18 decimals. */
export const XP_DECIMALS = 18;

/** 404 `badge_not_found`: no badge of the app has this name or id. */
export class BadgeNotFoundError extends NotFoundError {
  constructor(by: 'name' | 'id') {
    super('badge_not_found', `No badge found with this ${by} in this app`);
  }
}

/** 409 `too_many_badges`: several badges of the app have this name; `badges` lists them. */
export class TooManyBadgesError extends AppError {
  constructor(badges: BadgeSummary[]) {
    super('too_many_badges', 'Too many badges found with this name: give badge_id instead', 409, {
      badges: badges.map(({ id, name }) => ({ id, name })),
    });
  }
}

/** 404 `token_not_found`. */
export class TokenNotFoundError extends NotFoundError {
  constructor(message: string) {
    super('token_not_found', message);
  }
}

export interface RewardsServiceDeps {
  chains: ChainRegistry;
  builder: TransactionBuilder;
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
    await this.deps.apps.requireApp(chain, input.app_id);
    return this.build(chain, sender, input.app_id, 'rewardXP', [
      input.receiver,
      amount,
      encodeActionId(input.action_id),
    ]);
  }

  async rewardBadge(input: RewardBadgeInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const badge = await this.findBadge(chain, input);
    return this.build(chain, sender, input.app_id, 'rewardBadge', [
      badge.id,
      input.receiver,
      BigInt(input.amount),
      input.base_uri ?? '',
      encodeActionId(input.action_id),
    ]);
  }

  /** mint false: App.transferERC20 (from the sender, needs its allowance for the app); true: App.rewardCredit. */
  async rewardCredit(input: RewardCreditInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.appToken(chain, input.app_id, input.token_address);
    if (!token || token.isPoint) {
      throw new TokenNotFoundError('No credit token found with this address in this app');
    }
    const amount = toBaseUnits(input.amount, token.decimals, 'amount');
    const actionId = encodeActionId(input.action_id);
    return input.mint
      ? this.build(
          chain,
          sender,
          input.app_id,
          'rewardCredit',
          [token.address, input.receiver, amount, actionId],
          true,
        )
      : this.build(
          chain,
          sender,
          input.app_id,
          'transferERC20',
          [token.address, input.receiver, amount, actionId],
          true,
        );
  }

  async rewardPoint(input: RewardPointInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.appToken(chain, input.app_id, input.token_address);
    if (!token || !token.isPoint) {
      throw new TokenNotFoundError('No token found: the address is not a point token of this app');
    }
    const amount = toBaseUnits(input.amount, token.decimals, 'amount');
    return this.build(chain, sender, input.app_id, 'rewardPoint', [
      token.address,
      input.receiver,
      amount,
      encodeActionId(input.action_id),
    ]);
  }

  /** The token when it is a Laurel credit/point token of the app; AppNotFoundError for an unknown app. */
  private async appToken(chain: Chain, appId: string, tokenAddress: string): Promise<TokenInfo | null> {
    const [, token] = await Promise.all([
      this.deps.apps.requireApp(chain, appId),
      this.deps.tokens.get(chain, tokenAddress),
    ]);
    return token && token.app === getAddress(appId) ? token : null;
  }

  private async findBadge(chain: Chain, input: RewardBadgeInput): Promise<BadgeSummary> {
    const badges = await this.deps.badges.badgesOf(chain, input.app_id);
    if (input.badge_id !== undefined) {
      const badge = badges.find((candidate) => candidate.id === input.badge_id);
      if (!badge) throw new BadgeNotFoundError('id');
      return badge;
    }
    const named = badges.filter((candidate) => candidate.name === input.badge_name);
    if (named.length === 0) throw new BadgeNotFoundError('name');
    if (named.length > 1) throw new TooManyBadgesError(named);
    return named[0];
  }

  private build(
    chain: Chain,
    sender: string,
    app: string,
    functionName: string,
    args: unknown[],
    includeGas = false,
  ): Promise<UnsignedTransactionJson> {
    return this.deps.builder.build({
      chain,
      from: sender,
      to: app,
      data: appInterface.encodeFunctionData(functionName, args),
      functionName,
      contractInterface: appInterface,
      includeGas,
    });
  }
}
