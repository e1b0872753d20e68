import { Field, Int, ObjectType } from 'type-graphql';
import type { IndexedBadge } from '../../indexer/read/index-reader';

@ObjectType({ description: 'A badge (ERC-721 collection) of an app' })
export class BadgeInfo implements IndexedBadge {
  @Field({ description: 'The badge contract address' })
  id!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: 'The base URI of its token URIs; null when none' })
  metadataURI!: string | null;

  @Field(() => Int, { description: 'Users holding at least one of its tokens' })
  holders!: number;
}
