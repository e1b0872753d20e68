/** Laurel's client: see README.md. */
export { Laurel, newIdempotencyKey, type LaurelApi, type LaurelOptions, type LaurelPaths } from './laurel.js';
export { LaurelError, messageOf } from './errors.js';
export { keySlot, signIn, type KeyStore, type SignedIn, type SignInOptions } from './sign-in.js';
export {
  eip1193Signer,
  messageSigner,
  type Eip1193Provider,
  type EthersSignerLike,
  type MessageSigner,
  type ViemAccountLike,
} from './signers.js';
export { laurelAbis } from './abis.js';
export {
  BUILD_OPERATIONS,
  DEFAULT_VERIFY_LIMITS,
  PERMIT_TYPES,
  TransactionMismatchError,
  verifyPermitData,
  verifyTransaction,
  type BuildOperation,
  type BuildRequest,
  type ChainReader,
  type PermitData,
  type PostBody,
  type UnsignedTransaction,
  type VerifyContext,
  type VerifyLimits,
} from './verify.js';
export { sendVerified, verifiedPermitData, type SendOptions, type TransactionWallet } from './send.js';
export { toBaseUnits } from './amounts.js';
export {
  executeSigned,
  type Executed,
  type ExecutedAndWaited,
  type ExecuteInput,
  type RecoveryOptions,
} from './execute.js';
export {
  FollowTimeoutError,
  followTransaction,
  isSettled,
  type FollowOptions,
  type TransactionState,
} from './follow.js';
export { retryAfterMs, type RetryOptions } from './retry.js';
export {
  challengeAnswer,
  expressWebhookHandler,
  verifyWebhook,
  verifyWebhookRequest,
  webhookFetchHandler,
  WebhookVerificationError,
  type ExpressLikeRequest,
  type ExpressLikeResponse,
  type LaurelWebhookEvent,
  type TransactionReceipt,
  type WebhookEventHandler,
  type WebhookHeaders,
  type WebhookVerifyOptions,
} from './webhooks.js';
export {
  LaurelSubscriptionError,
  LaurelSubscriptions,
  subscriptionDocument,
  type ConnectionStatus,
  type Pushed,
  type Selected,
  type Selection,
  type SubscriptionField,
  type SubscriptionOptions,
  type SubscriptionSink,
} from './subscriptions.js';
// The GraphQL shapes (schema.graphql); its TransactionState is SubscriptionResults['transactionStatus'].
export type {
  CollectedBadgeInfo,
  CompletedActionInfo,
  CreditBalanceInfo,
  LeaderboardEntryInfo,
  SubscriptionArguments,
  SubscriptionResults,
  UserProfileInfo,
} from './generated/graphql.js';
