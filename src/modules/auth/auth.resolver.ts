import { Resolver } from 'type-graphql';
import type { AuthenticatedContext, RequestContext } from '../../operations/request-context';
import { Operation } from '../../operations/operation';
import {
  listApiKeysSchema,
  requestChallengeSchema,
  revokeApiKeySchema,
  verifyChallengeSchema,
  type RequestChallengeInput,
  type RevokeApiKeyInput,
  type VerifyChallengeInput,
} from './auth.schema';
import type { AuthService } from './auth.service';
import { ApiKeyChallenge, ApiKeyInfo, IssuedApiKey } from './auth.types';

/** One method per operation; the REST routes (auth.routes.ts) call these same methods. */
@Resolver()
export class AuthResolver {
  constructor(private readonly auth: AuthService) {}

  @Operation({
    kind: 'mutation',
    public: true,
    input: requestChallengeSchema,
    output: ApiKeyChallenge,
    description: 'Step 1 of getting an API key: a message for the wallet to sign (POST /key/challenge)',
  })
  async requestApiKeyChallenge(args: RequestChallengeInput, ctx: RequestContext): Promise<ApiKeyChallenge> {
    return this.auth.createChallenge(args.public_address, ctx.clientAddress, ctx.origin);
  }

  @Operation({
    kind: 'mutation',
    public: true,
    input: verifyChallengeSchema,
    output: IssuedApiKey,
    description: 'Step 2: the signed challenge in, a new API key out, shown once (POST /key/verify)',
  })
  async verifyApiKeyChallenge(args: VerifyChallengeInput, ctx: RequestContext): Promise<IssuedApiKey> {
    return this.auth.verifyChallenge(args, ctx.clientAddress, ctx.origin);
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: listApiKeysSchema,
    output: [ApiKeyInfo],
    description: 'The API keys of the logged-in account (GET /keys)',
  })
  async apiKeys(_args: object, ctx: AuthenticatedContext): Promise<ApiKeyInfo[]> {
    return this.auth.listApiKeys(ctx.account.address);
  }

  @Operation({
    kind: 'mutation',
    input: revokeApiKeySchema,
    output: ApiKeyInfo,
    description:
      'Revokes one of the logged-in account’s API keys: refused at once by this process, within a second by any other, and its WebSockets closed in every process (DELETE /keys/:id)',
  })
  async revokeApiKey(args: RevokeApiKeyInput, ctx: AuthenticatedContext): Promise<ApiKeyInfo> {
    return this.auth.revokeApiKey(ctx.account.address, args.id);
  }
}
