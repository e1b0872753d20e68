import type { Logger } from '../logger';
import type { IdempotentRequest } from './idempotency';

/** What an API key may run: `full` every operation, `read` only those declared `scope: 'read'`. */
export type KeyScope = 'full' | 'read';

/** The wallet account behind a valid API key: the interface's "logged-in user". */
export interface AuthenticatedAccount {
  /** Checksummed wallet address. */
  address: string;
  apiKeyId: string;
  scope: KeyScope;
  /** When the key stops being accepted; null: never. */
  expiresAt: Date | null;
}

/** Where a request came to: Sign-In with Ethereum names it. */
export interface RequestOrigin {
  /** `http` or `https` (X-Forwarded-Proto behind a trusted proxy). */
  scheme: string;
  /** Host and port, as the Host header (X-Forwarded-Host behind a trusted proxy) names them. */
  host: string;
}

/** What every operation receives, whether it arrived over REST or GraphQL. */
export interface RequestContext {
  requestId: string;
  log: Logger;
  account: AuthenticatedAccount | null;
  /** Why the key sent was refused, when a request went on without an account (GraphQL): `API key expired`. */
  keyRefusal?: string;
  /** The request sent an `Authorization` header, which Laurel does not read: the 401s say so. */
  sentAuthorization?: boolean;
  /** The client's IP address (behind proxies as TRUST_PROXY allows): key issuance is limited per client. */
  clientAddress: string;
  /** Where the request came to (TRUST_PROXY as for the client address); absent when it names no host, and over WebSocket. */
  origin?: RequestOrigin | null;
  /**
   * Fields for the request's log line (e.g. the GraphQL operation it ran). An object filled in
   * place: Apollo hands operations a shallow copy of the context.
   */
  logFields: Record<string, unknown>;
  /**
   * Labels for the metrics, filled in place as logFields is: `route`, what the request ran as a
   * bounded label, a REST route template (`/v1/webhook/:id`) or GraphQL's root fields
   * (`/graphql rewardXP`).
   */
  labels: { route?: string };
  /** The request's Idempotency-Key, when it sent one (HTTP only: not over WebSocket). */
  idempotency?: IdempotentRequest | null;
}

/** The context of an operation that needs an API key: its account is known. */
export interface AuthenticatedContext extends RequestContext {
  account: AuthenticatedAccount;
}

/** What holds keys in live use (WebSockets): told when one of them is revoked, in any process. */
export interface RevocationWatcher {
  /** The ids of the keys it holds (looked up after revocations may have been missed). */
  keys(): Iterable<string>;
  revoked(apiKeyId: string): void;
}

/** What the transports need from the auth module to authenticate and count requests. */
export interface RequestAuthenticator {
  /** Resolves an X-API-KEY value; throws UnauthenticatedError for an unknown or revoked key. */
  authenticate(apiKey: string): Promise<AuthenticatedAccount>;
  /** Spends `cost` of the account's request budget; throws RateLimitedError over it. */
  countRequest(account: AuthenticatedAccount, cost?: number): Promise<void>;
  /** Tells `watcher` of every revocation of a key, in any process; returns what stops it. */
  watchRevocations(watcher: RevocationWatcher): () => void;
  /** Spends one of the client address's requests without a valid key; throws RateLimitedError over it. */
  countAnonymousRequest(clientAddress: string): Promise<void>;
}
