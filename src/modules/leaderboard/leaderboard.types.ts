import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A user and the amount rewarded to them in the leaderboard window' })
export class LeaderboardEntryInfo {
  @Field({ description: 'The user address' })
  user!: string;

  @Field({ description: 'The amount rewarded in the window, formatted units (XP: 18 decimals)' })
  xp_rewarded!: string;
}
