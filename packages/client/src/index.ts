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
export { executeSigned, type Executed, type ExecutedAndWaited, type ExecuteInput } from './execute.js';
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
export type * from './generated/graphql.js';
