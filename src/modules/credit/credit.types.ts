import { ArgsType, Field, Float, Int, ObjectType } from 'type-graphql';

@ArgsType()
export class CreateCreditTokenArgs {
  @Field({ description: 'Chain name' })
  chain!: string;

  @Field({ description: 'The app (its contract address) the token belongs to; the caller must operate it' })
  app_id!: string;

  @Field({ description: '1..512 characters' })
  token_name!: string;

  @Field({ description: '1..512 characters' })
  token_symbol!: string;

  @Field(() => Float, { description: 'Initial supply in formatted units (>= 0), minted to the caller' })
  token_supply!: number;

  @Field(() => Int, { description: 'Decimals of the token (0..18 on Laurel contracts)' })
  token_decimals!: number;

  @Field({ description: 'True for a non-transferable point token' })
  token_is_point!: boolean;
}

@ArgsType()
export class ApproveCreditArgs {
  @Field()
  chain!: string;

  @Field({ description: 'The credit token (its address)' })
  token_id!: string;

  @Field({ description: 'The token holder: the caller’s own wallet, which signs the approval' })
  holder_address!: string;

  @Field({ description: 'Who may then transfer up to `amount` from the holder' })
  spender_address!: string;

  @Field(() => Float, { description: 'Formatted units, > 0' })
  amount!: number;
}

@ArgsType()
export class CreditPermitDataArgs {
  @Field()
  chain!: string;

  @Field({ description: 'The credit token (its address)' })
  token_id!: string;

  @Field({ description: 'The token holder, who signs `hashToSign`' })
  holder_address!: string;

  @Field({ description: 'The spender the permit allows' })
  receiver_address!: string;

  @Field(() => Float, { description: 'Formatted units, > 0' })
  amount!: number;
}

@ArgsType()
export class CreditBalanceArgs {
  @Field()
  chain!: string;

  @Field({ description: 'The credit token (its address)' })
  token_id!: string;

  @Field({ description: 'The holder whose balance is read' })
  user_id!: string;
}

@ArgsType()
export class CreditTokensArgs {
  @Field()
  chain!: string;

  @Field({ description: 'The app (its contract address)' })
  app_id!: string;
}

@ObjectType({ description: 'EIP-2612 permit data: the holder signs `hashToSign` (a raw EIP-712 digest)' })
export class PermitData {
  @Field({ description: "The holder's permit nonce on the token, decimal" })
  nonce!: string;

  @Field({ description: "The token's EIP-712 domain separator, hex" })
  domainSeparator!: string;

  @Field(() => Int, { description: 'Unix timestamp (seconds) after which the permit is void' })
  deadline!: number;

  @Field({ description: 'EIP-712 digest of Permit(owner, spender, value, nonce, deadline), hex' })
  hashToSign!: string;
}

@ObjectType({ description: "A holder's balance of a credit token" })
export class CreditBalance {
  @Field({ description: 'Raw (base units), decimal' })
  balance!: string;

  @Field({ description: 'Adjusted by decimals' })
  balance_formatted!: string;

  @Field(() => Int)
  decimals!: number;
}

@ObjectType({ description: "One of an app's credit or point tokens" })
export class CreditTokenInfo {
  @Field({ description: 'Token address' })
  id!: string;

  @Field()
  name!: string;

  @Field()
  symbol!: string;

  @Field(() => Int)
  decimals!: number;

  @Field({ description: 'True for a non-transferable point token' })
  is_point!: boolean;
}
