import { ArgsType, Field, ObjectType } from 'type-graphql';

@ArgsType()
export class CreateBadgeArgs {
  @Field({ description: 'Chain name (1..255)' })
  chain!: string;

  @Field({ description: 'The app (App contract address)' })
  app_id!: string;

  @Field({ description: 'The badge name (1..256)' })
  badge_name!: string;

  @Field(() => String, { nullable: true, description: 'Base URI of the token URIs (max 512)' })
  base_uri?: string;
}

@ArgsType()
export class ListBadgesArgs {
  @Field({ description: 'Chain name (1..255)' })
  chain!: string;

  @Field({ description: 'The app (App contract address)' })
  app_id!: string;
}

@ObjectType({ description: 'A badge (ERC-721 collection) of an app' })
export class BadgeInfo {
  @Field({ description: 'The badge contract address' })
  id!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true, description: 'The base URI of its token URIs; null when none' })
  metadataURI!: string | null;
}
