import { Field, Int, ObjectType } from 'type-graphql';
import { BadgeFields } from '../badges/badges.types';
import { CHAIN_TEXT_NOTE } from '../../stored-text';

@ObjectType({ description: 'A badge collection the user holds tokens of' })
export class CollectedBadgeInfo extends BadgeFields {}

@ObjectType({ description: 'One reward the user received for an action (one App `Rewarded` event)' })
export class CompletedActionInfo {
  @Field({ description: 'The action name (action_id)' })
  name!: string;

  @Field({
    description: 'XP rewarded in formatted units (18 decimals); "0" for badge, credit and point rewards',
  })
  xp_rewarded!: string;

  @Field({ description: 'Block time, seconds since the epoch, as a decimal string' })
  createdAt!: string;
}

@ObjectType({ description: "The user's balance of one credit or point token of the app" })
export class CreditBalanceInfo {
  @Field({ description: 'The token address' })
  token_id!: string;

  @Field({ description: `The token name. ${CHAIN_TEXT_NOTE}` })
  token_name!: string;

  @Field({ description: 'Raw base units' })
  token_balance!: string;

  @Field({ description: 'Formatted units (decimal-adjusted)' })
  token_balance_formatted!: string;

  @Field({ description: `The token symbol. ${CHAIN_TEXT_NOTE}` })
  token_symbol!: string;

  @Field(() => Int)
  token_decimals!: number;
}

@ObjectType({
  description: "A user's XP, badges, completed actions and (for one app) credit balances, from the index",
})
export class UserProfileInfo {
  @Field({ description: 'The user address' })
  user_id!: string;

  @Field({ description: 'XP balance in formatted units (18 decimals)' })
  xp_balance!: string;

  @Field(() => [CollectedBadgeInfo])
  collected_badges!: CollectedBadgeInfo[];

  @Field(() => [CompletedActionInfo], { description: 'Newest first' })
  completed_actions!: CompletedActionInfo[];

  @Field(() => [CreditBalanceInfo], {
    nullable: true,
    description: 'Only with app_id: its credit and point tokens',
  })
  credit_balances?: CreditBalanceInfo[];
}
