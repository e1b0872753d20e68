import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { ValidateArgs } from '../../graphql/validate-args';
import {
  listApiKeysSchema,
  requestChallengeSchema,
  revokeApiKeySchema,
  verifyChallengeSchema,
} from './auth.schema';
import type { AuthService } from './auth.service';
import {
  ApiKeyChallenge,
  ApiKeyInfo,
  IssuedApiKey,
  RequestApiKeyChallengeArgs,
  RevokeApiKeyArgs,
  VerifyApiKeyChallengeArgs,
} from './auth.types';

/** One method per operation; the REST routes (auth.routes.ts) call these same methods. */
@Resolver()
export class AuthResolver {
  constructor(private readonly auth: AuthService) {}

  @Mutation(() => ApiKeyChallenge, {
    description: 'Step 1 of getting an API key: a message for the wallet to sign (POST /key/challenge)',
  })
  @ValidateArgs(requestChallengeSchema)
  async requestApiKeyChallenge(@Args() args: RequestApiKeyChallengeArgs): Promise<ApiKeyChallenge> {
    return this.auth.createChallenge(args.public_address);
  }

  @Mutation(() => IssuedApiKey, {
    description: 'Step 2: the signed challenge in, a new API key out, shown once (POST /key/verify)',
  })
  @ValidateArgs(verifyChallengeSchema)
  async verifyApiKeyChallenge(@Args() args: VerifyApiKeyChallengeArgs): Promise<IssuedApiKey> {
    return this.auth.verifyChallenge(args.public_address, args.signature);
  }

  @Authorized()
  @Query(() => [ApiKeyInfo], { description: 'The API keys of the logged-in account (GET /keys)' })
  @ValidateArgs(listApiKeysSchema)
  async apiKeys(@Ctx() ctx: RequestContext): Promise<ApiKeyInfo[]> {
    return this.auth.listApiKeys(requireAccount(ctx).address);
  }

  @Authorized()
  @Mutation(() => ApiKeyInfo, {
    description:
      'Revokes one of the logged-in account’s API keys; effective on the next request (DELETE /keys/:id)',
  })
  @ValidateArgs(revokeApiKeySchema)
  async revokeApiKey(@Args() args: RevokeApiKeyArgs, @Ctx() ctx: RequestContext): Promise<ApiKeyInfo> {
    return this.auth.revokeApiKey(requireAccount(ctx).address, args.id);
  }
}
