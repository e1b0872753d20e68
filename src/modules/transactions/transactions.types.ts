import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import type { CreatedContracts as CreatedContractsJson } from '../../chain/created-contracts';

@ObjectType({ description: 'What a mined transaction created (from its receipt’s events), by address' })
export class CreatedContracts implements CreatedContractsJson {
  @Field(() => [String], { description: 'Apps (AppCreated): the app_id of later calls' })
  apps!: string[];

  @Field(() => [String], { description: 'Badge collections (BadgeCreated): badge_id' })
  badges!: string[];

  @Field(() => [String], { description: 'Credit and point tokens (CreditTokenCreated): token_id' })
  credit_tokens!: string[];
}

@ObjectType({ description: 'The outcome of broadcasting a signed transaction' })
export class TransactionExecution {
  @Field({ description: "'success' or 'failed'" })
  status!: string;

  @Field()
  transactionHash!: string;

  @Field()
  blockExplorerUrl!: string;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'The receipt (ethers TransactionReceipt JSON), once mined and seen: execute-and-wait, GET /transactions/{hash}',
  })
  receipt?: Record<string, unknown>;

  @Field(() => String, {
    nullable: true,
    description:
      "'Timeout' when execute-and-wait's receipt did not come in time; 'Transaction reverted: <decoded reason>' when it reverted",
  })
  error?: string;

  @Field(() => CreatedContracts, {
    nullable: true,
    description:
      'What the transaction created, once mined successfully and seen: execute-and-wait, GET /transactions/{hash} (a Laurel addition)',
  })
  created?: CreatedContracts;
}

@ObjectType({ description: 'A transaction the caller sent through Laurel, as the chain has it now' })
export class TransactionState extends TransactionExecution {
  @Field({
    description:
      "'pending' (sent, not mined), 'success', 'failed' (mined, reverted) or 'dropped' (the node no longer knows it)",
  })
  declare status: string;

  @Field({ description: 'The chain it was sent on' })
  chain!: string;

  @Field({ description: 'Its signer' })
  from!: string;

  @Field(() => Int)
  nonce!: number;

  @Field(() => Int, { description: 'Blocks from its block to the head, both counted; 0 until mined' })
  confirmations!: number;

  @Field(() => Int, { nullable: true, description: 'Its block, once mined' })
  blockNumber!: number | null;

  @Field({ description: 'When it was sent through Laurel' })
  sent_at!: Date;
}

@ObjectType({ description: 'Nonce reservations of the caller’s builds that were never sent, released' })
export class ReleasedReservations {
  @Field()
  chain!: string;

  @Field({ description: 'The wallet whose nonces they were: the caller' })
  sender!: string;

  @Field(() => [Int], { description: 'The nonces freed: the next builds use them again' })
  released!: number[];
}
