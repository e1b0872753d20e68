/**
 * What a 401 for a missing or unreadable API key adds after its documented text: how to get a key,
 * and, when the request sent an `Authorization` header instead, that Laurel does not read it (the
 * usual mistake of a client written for a Bearer-token API).
 */
export const GET_A_KEY =
  'Get a key: POST /key/challenge, then POST /key/verify with the challenge signed by your wallet; ' +
  'or "Sign in with a wallet" at /graphql; or `laurel key` (the @laurel/client command-line tool)';

export const AUTHORIZATION_NOT_READ =
  'Laurel does not read the Authorization header: send the key itself in X-API-KEY (no "Bearer")';

/** `refusal` followed by the help: `Missing API key: send it in the X-API-KEY header. … Get a key: …` */
export function withKeyHelp(refusal: string, sentAuthorization: boolean): string {
  return [refusal, ...(sentAuthorization ? [AUTHORIZATION_NOT_READ] : []), GET_A_KEY].join('. ');
}
