import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import type { IndexedBadge } from '../../indexer/read/index-reader';
import { CHAIN_TEXT_NOTE } from '../../stored-text';

/** What every answer naming a badge says of it (GET /badges, a profile's collected badges). */
@ObjectType()
export class BadgeFields {
  @Field({ description: 'The badge contract address' })
  id!: string;

  @Field({ description: `The badge name. ${CHAIN_TEXT_NOTE}` })
  name!: string;

  @Field(() => String, {
    nullable: true,
    description: `The base URI of its token URIs; null when none. ${CHAIN_TEXT_NOTE}`,
  })
  metadataURI!: string | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'The JSON object served at metadataURI (https://, or ipfs:// through the gateway), fetched in the background; null until it is known, or when no fetch has succeeded',
  })
  metadata!: Record<string, unknown> | null;
}

@ObjectType({ description: 'A badge (ERC-721 collection) of an app' })
export class BadgeInfo extends BadgeFields implements IndexedBadge {
  @Field(() => Int, { description: 'Users holding at least one of its tokens' })
  holders!: number;
}
