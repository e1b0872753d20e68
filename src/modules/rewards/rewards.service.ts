import { checksumAddress } from '../../addresses';
import type { ContractCall, WriteFunctionName } from '../../chain/abis';
import { toBaseUnits } from '../../chain/amounts';
import { encodeFunctionCall } from '../../chain/call-data';
import { encodeActionId, XP_DECIMALS } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import { isRevert, TransactionRevertedError } from '../../chain/reverts';
import type { TokenDirectory, TokenInfo } from '../../chain/tokens';
import type { UnsignedTransactionJson } from '../../chain/unsigned-transactions';
import { AppError, defineFailure, ValidationError } from '../../errors';
import type { AppsService } from '../apps/apps.service';
import type { BadgesService } from '../badges/badges.service';
import { TokenNotFoundError } from '../credit/credit.service';
import type {
  RewardBadgeInput,
  RewardBatchInput,
  RewardBatchItem,
  RewardCreditInput,
  RewardPointInput,
  RewardXPInput,
} from './rewards.schema';

export interface RewardsServiceDeps {
  chains: ChainRegistry;
  tokens: TokenDirectory;
  apps: AppsService;
  badges: BadgesService;
  /** Most items of one batch (REWARD_BATCH_MAX_ITEMS). */
  batchMaxItems: number;
}

/** The reward functions of App, one a kind. */
type RewardFunction = 'rewardXP' | 'rewardBadge' | 'rewardCredit' | 'transferERC20' | 'rewardPoint';
/** One reward call of an app, as a single build sends it or a batch encodes it. */
type RewardCall = {
  [F in RewardFunction]: Omit<ContractCall<'App', F>, 'contract' | 'address'>;
}[RewardFunction];

/**
 * 422 `batch_unsupported`: the app was deployed before App.batch (its bytecode has no batch), so
 * its rewards are built one by one (POST /reward/XP, …).
 */
export const BATCH_UNSUPPORTED = defineFailure({
  status: 422,
  codes: ['batch_unsupported'],
  description:
    'The app was deployed before batch rewards (its contract has no `batch`): reward with the single endpoints',
});

/**
 * Builds the reward transactions of an app (App.rewardXP, rewardBadge, rewardCredit, rewardPoint,
 * transferERC20), one reward a transaction or several in one (App.batch). The sender must be the
 * app's owner or an operator: otherwise the simulation reverts with NotOperator and the build
 * answers a transaction_error.
 */
export class RewardsService {
  constructor(private readonly deps: RewardsServiceDeps) {}

  async rewardXP(input: RewardXPInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.build(chain, input.app_id, sender, this.xpCall(input));
  }

  async rewardBadge(input: RewardBadgeInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.build(chain, input.app_id, sender, await this.badgeCall(chain, input.app_id, input));
  }

  /** mint false: App.transferERC20 (from the sender, needs its allowance for the app); true: App.rewardCredit. */
  async rewardCredit(input: RewardCreditInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.build(chain, input.app_id, sender, await this.creditCall(chain, input.app_id, input));
  }

  async rewardPoint(input: RewardPointInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.build(chain, input.app_id, sender, await this.pointCall(chain, input.app_id, input));
  }

  /**
   * One transaction of App.batch with each item's reward call, in order. An item refused before
   * the chain (unknown badge or token) or reverting in the simulation is named by its index
   * (`item_index`; the revert's `transaction_error.item_index`).
   */
  async rewardBatch(input: RewardBatchInput, sender: string): Promise<UnsignedTransactionJson> {
    const max = this.deps.batchMaxItems;
    if (input.items.length > max) {
      throw new ValidationError([
        {
          code: 'too_big',
          path: ['items'],
          message: `A batch has at most ${max} items (REWARD_BATCH_MAX_ITEMS); split it`,
          maximum: max,
          type: 'array',
          inclusive: true,
          exact: false,
        },
      ]);
    }
    const chain = this.deps.chains.get(input.chain);
    await this.deps.apps.requireApp(chain, input.app_id);
    const calls = await Promise.all(
      input.items.map((item, index) =>
        Promise.resolve()
          .then(() => this.itemCall(chain, input.app_id, item))
          .catch((error: unknown) => {
            throw namedItem(error, index);
          }),
      ),
    );
    const data = calls.map((call) => encodeFunctionCall('App', call.functionName, call.args));
    try {
      return await this.build(chain, input.app_id, sender, { functionName: 'batch', args: [data] });
    } catch (error) {
      if (
        error instanceof TransactionRevertedError &&
        error.transactionError.data.errorName === null &&
        (await this.predatesBatch(chain, input.app_id, sender))
      ) {
        throw new BATCH_UNSUPPORTED.Error(
          'This app was deployed before batch rewards: its contract has no batch. Reward one by one (POST /v1/reward/XP, /badge, /credit, /point), or create a new app',
        );
      }
      throw error;
    }
  }

  private itemCall(chain: Chain, appId: string, item: RewardBatchItem): Promise<RewardCall> | RewardCall {
    switch (item.kind) {
      case 'xp':
        return this.xpCall(item);
      case 'badge':
        return this.badgeCall(chain, appId, item);
      case 'credit':
        return this.creditCall(chain, appId, item);
      case 'point':
        return this.pointCall(chain, appId, item);
    }
  }

  private build<F extends WriteFunctionName<'App'>>(
    chain: Chain,
    appId: string,
    sender: string,
    call: Omit<ContractCall<'App', F>, 'contract' | 'address'>,
  ): Promise<UnsignedTransactionJson> {
    return this.deps.apps.buildAppCall(chain, sender, { contract: 'App', address: appId, ...call });
  }

  private xpCall(input: Omit<RewardXPInput, 'chain' | 'app_id'>): RewardCall {
    return {
      functionName: 'rewardXP',
      args: [
        input.receiver,
        toBaseUnits(input.amount, XP_DECIMALS, 'amount'),
        encodeActionId(input.action_id),
      ],
    };
  }

  private async badgeCall(
    chain: Chain,
    appId: string,
    input: Omit<RewardBadgeInput, 'chain' | 'app_id'>,
  ): Promise<RewardCall> {
    const badge = await this.deps.badges.findBadge(chain, appId, input);
    return {
      functionName: 'rewardBadge',
      args: [
        badge.id,
        input.receiver,
        BigInt(input.amount),
        input.base_uri ?? '',
        encodeActionId(input.action_id),
      ],
    };
  }

  private async creditCall(
    chain: Chain,
    appId: string,
    input: Omit<RewardCreditInput, 'chain' | 'app_id'>,
  ): Promise<RewardCall> {
    const token = await this.appToken(chain, appId, input.token_address);
    if (!token || token.isPoint) {
      throw new TokenNotFoundError('No credit token found with this address in this app');
    }
    return {
      functionName: input.mint ? 'rewardCredit' : 'transferERC20',
      args: [
        token.address,
        input.receiver,
        toBaseUnits(input.amount, token.decimals, 'amount'),
        encodeActionId(input.action_id),
      ],
    };
  }

  private async pointCall(
    chain: Chain,
    appId: string,
    input: Omit<RewardPointInput, 'chain' | 'app_id'>,
  ): Promise<RewardCall> {
    const token = await this.appToken(chain, appId, input.token_address);
    if (!token || !token.isPoint) {
      throw new TokenNotFoundError('No token found: the address is not a point token of this app');
    }
    return {
      functionName: 'rewardPoint',
      args: [
        token.address,
        input.receiver,
        toBaseUnits(input.amount, token.decimals, 'amount'),
        encodeActionId(input.action_id),
      ],
    };
  }

  /**
   * Whether the app's contract has no App.batch (deployed before it): asked after a batch reverted
   * without a reason. An empty batch from the same sender (an operator: otherwise the batch had
   * reverted with NotOperator) runs on an app that has it, and reverts without data on one that has not.
   */
  private predatesBatch(chain: Chain, appId: string, sender: string): Promise<boolean> {
    const data = encodeFunctionCall('App', 'batch', [[]]);
    return this.deps.chains.withProvider(chain, (provider) =>
      provider.send('eth_call', [{ from: sender, to: appId, data }, 'latest']).then(
        () => false,
        (error: unknown) => {
          if (isRevert(error)) return true;
          throw error;
        },
      ),
    );
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

/**
 * An item's failure with its index: a validation issue's path under `items.<index>`, another
 * failure's `item_index` beside its own fields, and in its message.
 */
function namedItem(error: unknown, index: number): unknown {
  if (error instanceof ValidationError) {
    return new ValidationError(
      error.issues.map((issue) => ({ ...issue, path: ['items', index, ...issue.path] })),
    );
  }
  if (!(error instanceof AppError)) return error;
  error.message = `items.${index}: ${error.message}`;
  Object.assign(error.details, { item_index: index });
  return error;
}
