import { Field, Int, ObjectType } from 'type-graphql';
import type { IndexedToken } from '../../indexer/read/index-reader';
import { CHAIN_TEXT_NOTE } from '../../stored-text';

@ObjectType({
  description:
    "The token's EIP-712 domain (its eip712Domain(), ERC-5267): sign Permit on it with eth_signTypedData_v4",
})
export class PermitDomainInfo {
  @Field({
    description:
      "The domain's name: the token's name, whatever its length. A token created outside Laurel's builders may name itself with bytes that are not UTF-8: they read as U+FFFD here, the domain no longer hashes to `domainSeparator`, and only the raw digest `hashToSign` can be signed",
  })
  name!: string;

  @Field()
  version!: string;

  @Field(() => Int)
  chainId!: number;

  @Field({ description: 'The token' })
  verifyingContract!: string;
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

  @Field(() => PermitDomainInfo, {
    description: 'The domain `hashToSign` is on, read from the token (for signTypedData with PERMIT types)',
  })
  domain!: PermitDomainInfo;
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
export class CreditTokenInfo implements IndexedToken {
  @Field({ description: 'Token address' })
  id!: string;

  @Field({ description: `The token name. ${CHAIN_TEXT_NOTE}` })
  name!: string;

  @Field({ description: `The token symbol. ${CHAIN_TEXT_NOTE}` })
  symbol!: string;

  @Field(() => Int)
  decimals!: number;

  @Field({ description: 'True for a non-transferable point token' })
  is_point!: boolean;
}
