import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, ObjectType } from 'type-graphql';

@ArgsType()
export class ExecuteTransactionArgs {
  @Field(() => String, {
    nullable: true,
    description:
      'Chain name; when absent, the chain whose chain id the signed transaction names (they must agree)',
  })
  chain?: string;

  @Field({ description: 'The signed transaction, 0x-prefixed hex (as eth_sendRawTransaction takes it)' })
  signed_transaction!: string;
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
    description: 'The receipt (ethers TransactionReceipt JSON); only when waited for and mined',
  })
  receipt?: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: "'Timeout' when the receipt did not come in time" })
  error?: string;
}
