import { Field, ObjectType } from 'type-graphql';
import type { IndexedApp } from '../../indexer/read/index-reader';
import { CHAIN_TEXT_NOTE } from '../../stored-text';

@ObjectType({ description: 'A Laurel app the caller owns or operates' })
export class AppInfo implements IndexedApp {
  @Field({ description: 'The app id: its App contract address' })
  id!: string;

  @Field({ description: `The app name. ${CHAIN_TEXT_NOTE}` })
  name!: string;

  @Field({ description: 'The app owner wallet' })
  owner!: string;

  @Field({ description: "The app's XP token address" })
  xp_token!: string;

  @Field(() => [String], {
    description:
      'The wallets the owner made operators (App.addOperator, not removed since), by address: they reward and create tokens and badges, but cannot manage operators',
  })
  operators!: string[];
}
