import { ArgsType, Field, Float, Int } from 'type-graphql';

@ArgsType()
class RewardArgs {
  @Field({ description: 'Chain name (1..255)' })
  chain!: string;

  @Field({ description: 'The action rewarded (1..32 characters, at most 32 UTF-8 bytes)' })
  action_id!: string;

  @Field({ description: 'The user rewarded' })
  receiver!: string;

  @Field({ description: 'The app (App contract address)' })
  app_id!: string;
}

@ArgsType()
export class RewardBadgeArgs extends RewardArgs {
  @Field(() => Int, { description: 'Number of badges (>= 1)' })
  amount!: number;

  @Field(() => String, { nullable: true, description: 'The badge, by name within the app (or badge_id)' })
  badge_name?: string;

  @Field(() => String, { nullable: true, description: 'The badge contract address (or badge_name)' })
  badge_id?: string;

  @Field(() => String, {
    nullable: true,
    description: "URI of the new tokens (max 512); absent: the badge's base URI + token id",
  })
  base_uri?: string;
}

@ArgsType()
export class RewardCreditArgs extends RewardArgs {
  @Field({ description: 'The credit token' })
  token_address!: string;

  @Field(() => Float, { description: 'Amount in formatted units (> 0)' })
  amount!: number;

  @Field(() => Boolean, {
    nullable: true,
    description: "false (default): transfer the sender's tokens (needs an allowance for the app); true: mint",
  })
  mint?: boolean;
}

@ArgsType()
export class RewardPointArgs extends RewardArgs {
  @Field({ description: 'The point token' })
  token_address!: string;

  @Field(() => Float, { description: 'Amount in formatted units (> 0)' })
  amount!: number;
}

@ArgsType()
export class RewardXPArgs extends RewardArgs {
  @Field(() => Float, { description: 'XP in formatted units (> 0; XP has 18 decimals)' })
  amount!: number;
}
