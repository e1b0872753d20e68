import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A blockchain network this service serves' })
export class ChainInfo {
  @Field({ description: 'The `chain` value requests use' })
  name!: string;

  @Field(() => Int)
  chainId!: number;

  @Field({ description: 'Block explorer base URL; transaction links are <explorerUrl>/tx/<hash>' })
  explorerUrl!: string;

  @Field({ description: 'Address of the Laurel AppFactory on this chain' })
  factoryAddress!: string;

  @Field(() => Int, { description: 'Blocks a transaction needs before it counts as confirmed' })
  confirmations!: number;
}
