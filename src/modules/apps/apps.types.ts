import { ArgsType, Field, ObjectType } from 'type-graphql';

@ArgsType()
export class CreateAppArgs {
  @Field({ description: 'Chain name (1..255)' })
  chain!: string;

  @Field({ description: 'The app name (1..256)' })
  name!: string;
}

@ArgsType()
export class ListAppsArgs {
  @Field({ description: 'Chain name (1..255)' })
  chain!: string;
}

@ObjectType({ description: 'A Laurel app the caller owns or operates' })
export class AppInfo {
  @Field({ description: 'The app id: its App contract address' })
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'The app owner wallet' })
  owner!: string;

  @Field({ description: "The app's XP token address" })
  xp_token!: string;
}
