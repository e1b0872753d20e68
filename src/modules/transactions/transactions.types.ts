import { Field, Int, ObjectType } from 'type-graphql';
import type { CreatedContracts as CreatedContractsJson } from '../../chain/created-contracts';
import type { ReceiptJson, ReceiptLogJson } from '../../chain/receipts';

@ObjectType({ description: 'What a mined transaction created (from its receipt’s events), by address' })
export class CreatedContracts implements CreatedContractsJson {
  @Field(() => [String], { description: 'Apps (AppCreated): the app_id of later calls' })
  apps!: string[];

  @Field(() => [String], { description: 'Badge collections (BadgeCreated): badge_id' })
  badges!: string[];

  @Field(() => [String], { description: 'Credit and point tokens (CreditTokenCreated): token_id' })
  credit_tokens!: string[];
}

@ObjectType({ description: 'A log (event) of a mined transaction, as ethers’ Log.toJSON() has it' })
export class TransactionLog implements ReceiptLogJson {
  @Field({ description: "'log'" })
  _type!: 'log';

  @Field({ description: 'The contract that emitted it' })
  address!: string;

  @Field()
  blockHash!: string;

  @Field(() => Int)
  blockNumber!: number;

  @Field({ description: 'The non-indexed arguments, hex' })
  data!: string;

  @Field(() => Int, { description: 'Its position in the block' })
  index!: number;

  @Field(() => Boolean, {
    nullable: true,
    description: 'True when a reorganisation removed it (receipts’ logs leave it out)',
  })
  removed?: boolean;

  @Field(() => [String], { description: 'The event’s topic hash, then the indexed arguments' })
  topics!: string[];

  @Field()
  transactionHash!: string;

  @Field(() => Int)
  transactionIndex!: number;
}

@ObjectType({
  description:
    'A mined transaction’s receipt, as the interface’s receipt table has it (ethers’ TransactionReceipt.toJSON(); gas figures in wei as decimal strings)',
})
export class TransactionReceipt implements ReceiptJson {
  @Field({ description: "'TransactionReceipt'" })
  _type!: 'TransactionReceipt';

  @Field()
  blockHash!: string;

  @Field(() => Int)
  blockNumber!: number;

  @Field(() => String, { nullable: true, description: 'The contract a deployment created; null otherwise' })
  contractAddress!: string | null;

  @Field()
  cumulativeGasUsed!: string;

  @Field({ description: 'The signer' })
  from!: string;

  @Field({ description: 'The effective gas price' })
  gasPrice!: string;

  @Field(() => String, { nullable: true })
  blobGasUsed!: string | null;

  @Field(() => String, { nullable: true })
  blobGasPrice!: string | null;

  @Field()
  gasUsed!: string;

  @Field({ description: 'The transaction hash' })
  hash!: string;

  @Field(() => Int, { description: 'The transaction’s position in its block' })
  index!: number;

  @Field(() => [TransactionLog])
  logs!: TransactionLog[];

  @Field()
  logsBloom!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The state root of pre-Byzantium chains; null otherwise',
  })
  root!: string | null;

  @Field(() => Int, { nullable: true, description: '1 success, 0 reverted (null before Byzantium)' })
  status!: number | null;

  @Field(() => String, { nullable: true, description: 'The recipient; null for a deployment' })
  to!: string | null;
}

@ObjectType({ description: 'The outcome of broadcasting a signed transaction' })
export class TransactionExecution {
  @Field({ description: "'success' or 'failed'" })
  status!: string;

  @Field()
  transactionHash!: string;

  @Field()
  blockExplorerUrl!: string;

  @Field(() => TransactionReceipt, {
    nullable: true,
    description: 'The receipt, once mined and seen: execute-and-wait, GET /transactions/{hash}',
  })
  receipt?: TransactionReceipt;

  @Field(() => String, {
    nullable: true,
    description:
      "'Timeout' when execute-and-wait's receipt did not come in time; 'Transaction reverted: <decoded reason>' when it reverted; 'Dropped: <why>' for a dropped transaction (the node's refusal, or how long the node had not known it)",
  })
  error?: string;

  @Field(() => CreatedContracts, {
    nullable: true,
    description:
      'What the transaction created, once mined successfully and seen: execute-and-wait, GET /transactions/{hash} (a Laurel addition)',
  })
  created?: CreatedContracts;
}

@ObjectType({
  description: 'A transaction the caller’s wallet signed, sent through Laurel, as the chain has it now',
})
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

  @Field(() => Int, {
    description:
      'How many times Laurel sent it again because the node no longer had it (never sent, or dropped by a reorganisation or the node’s pool); 0 usually',
  })
  rebroadcasts!: number;

  @Field(() => Date, { nullable: true, description: 'When Laurel last sent it again; null if it never did' })
  rebroadcast_at!: Date | null;
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

@ObjectType({
  description: 'A transaction the caller’s wallet signed, sent through Laurel, as Laurel recorded it',
})
export class TransactionSummary {
  @Field()
  transactionHash!: string;

  @Field()
  blockExplorerUrl!: string;

  @Field({ description: 'The chain it was sent on' })
  chain!: string;

  @Field({ description: 'Its signer' })
  from!: string;

  @Field(() => String, { nullable: true, description: 'The recipient; null for a deployment' })
  to!: string | null;

  @Field(() => Int)
  nonce!: number;

  @Field({
    description:
      "As recorded: 'pending', 'success', 'failed' or 'dropped' (GET /v1/transactions/{hash} reads the chain now)",
  })
  status!: string;

  @Field(() => Int, { nullable: true, description: 'Its block, once its receipt is recorded' })
  blockNumber!: number | null;

  @Field({ description: 'When it was sent through Laurel' })
  sent_at!: Date;
}

@ObjectType({ description: 'A page of the caller’s transactions, newest first' })
export class TransactionPage {
  @Field(() => Int, { description: 'How many transactions match the filters, on every page' })
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  page_size!: number;

  @Field(() => [TransactionSummary])
  data!: TransactionSummary[];
}
