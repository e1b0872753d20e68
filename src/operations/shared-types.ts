import { Field, Int, ObjectType } from 'type-graphql';
import type { UnsignedTransactionJson } from '../chain/unsigned-transactions';

// simpleResolvers: plain data, no field middleware; graphql-js reads the properties itself
// instead of a type-graphql wrapper per field per request.
@ObjectType({
  description:
    'An unsigned EIP-1559 transaction: sign it with the sender wallet as given, then send it to executeTransaction',
  simpleResolvers: true,
})
export class UnsignedTransaction implements UnsignedTransactionJson {
  @Field({ description: 'The contract called' })
  to!: string;

  @Field({ description: 'Hex-encoded call data' })
  data!: string;

  @Field({ description: 'Decimal integer (wei)' })
  maxPriorityFeePerGas!: string;

  @Field({ description: 'Decimal integer (wei)' })
  maxFeePerGas!: string;

  @Field({ description: 'Decimal integer: the simulated gas use plus 20 %, within what a block holds' })
  gasLimit!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Same as gasLimit; only in credit creation, approval, transfer and ERC-20 reward responses',
  })
  gas?: string;

  @Field(() => Int, { description: 'Reserved for this transaction: sign and send it soon' })
  nonce!: number;

  @Field(() => Int)
  chainId!: number;

  @Field(() => Int, { description: 'Transaction type (2: EIP-1559)' })
  type!: 2;
}

@ObjectType({ description: 'The answer of every operation that builds a transaction', simpleResolvers: true })
export class UnsignedTransactionPayload {
  @Field(() => UnsignedTransaction)
  unsignedTransaction!: UnsignedTransaction;
}

/**
 * The answer of an operation that builds a transaction. `withGas` repeats gasLimit as `gas`: the
 * interface shows it on credit creation, approval and ERC-20 reward responses only.
 */
export function unsignedTransactionPayload(
  transaction: UnsignedTransactionJson,
  options: { withGas: boolean } = { withGas: false },
): UnsignedTransactionPayload {
  return {
    unsignedTransaction: options.withGas ? { ...transaction, gas: transaction.gasLimit } : transaction,
  };
}
