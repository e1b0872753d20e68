import { Field, ID, ObjectType } from 'type-graphql';
import type { KeyScope } from '../../operations/request-context';

@ObjectType({ description: 'A message to sign with the wallet to obtain an API key' })
export class ApiKeyChallenge {
  @Field({ description: 'Sign exactly this text (EIP-191 personal_sign), then call verifyApiKeyChallenge' })
  challenge!: string;
}

@ObjectType({ description: 'A new API key: shown once, send it in the X-API-KEY header' })
export class IssuedApiKey {
  @Field()
  api_key!: string;
}

@ObjectType({ description: 'An API key of the logged-in account (the key itself is never shown again)' })
export class ApiKeyInfo {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The first characters of the key, to tell keys apart' })
  prefix!: string;

  @Field()
  created_at!: Date;

  @Field(() => Date, { nullable: true })
  last_used_at!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Set once the key is revoked' })
  revoked_at!: Date | null;

  @Field(() => String, { description: '`full`: every operation; `read`: the reads only' })
  scope!: KeyScope;

  @Field(() => Date, { nullable: true, description: 'When the key stops being accepted; null: never' })
  expires_at!: Date | null;
}
