import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';

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
    description: 'The receipt (ethers TransactionReceipt JSON); only when waited for and mined',
  })
  receipt?: Record<string, unknown>;

  @Field(() => String, {
    nullable: true,
    description:
      "'Timeout' when the receipt did not come in time; 'Transaction reverted: <decoded reason>' when it reverted",
  })
  error?: string;
}
