// Generated from schema.graphql by `npm run schema:emit`: do not edit.

/** A badge collection the user holds tokens of */
export interface CollectedBadgeInfo {
  /** The badge contract address */
  id: string;
  /** The JSON object served at metadataURI (https://, or ipfs:// through the gateway), fetched in the background; null until it is known, or when no fetch has succeeded */
  metadata: Record<string, unknown> | null;
  /** The base URI of its token URIs; null when none. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
  metadataURI: string | null;
  /** The badge name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
  name: string;
}

/** One reward the user received for an action (one App `Rewarded` event) */
export interface CompletedActionInfo {
  /** Block time, seconds since the epoch, as a decimal string */
  createdAt: string;
  /** The action name (action_id) */
  name: string;
  /** XP rewarded in formatted units (18 decimals); "0" for badge, credit and point rewards */
  xp_rewarded: string;
}

/** What a mined transaction created (from its receipt’s events), by address */
export interface CreatedContracts {
  /** Apps (AppCreated): the app_id of later calls */
  apps: string[];
  /** Badge collections (BadgeCreated): badge_id */
  badges: string[];
  /** Credit and point tokens (CreditTokenCreated): token_id */
  credit_tokens: string[];
}

/** The user's balance of one credit or point token of the app */
export interface CreditBalanceInfo {
  /** Raw base units */
  token_balance: string;
  /** Formatted units (decimal-adjusted) */
  token_balance_formatted: string;
  token_decimals: number;
  /** The token address */
  token_id: string;
  /** The token name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
  token_name: string;
  /** The token symbol. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
  token_symbol: string;
}

/** A user and the amount rewarded to them in the leaderboard window */
export interface LeaderboardEntryInfo {
  /** The entry's user profile (of the leaderboard's app, if any); loaded for all entries at once */
  profile: UserProfileInfo;
  /** The user address */
  user: string;
  /** The amount rewarded in the window, formatted units (XP: 18 decimals) */
  xp_rewarded: string;
}

/** A log (event) of a mined transaction, as ethers’ Log.toJSON() has it */
export interface TransactionLog {
  /** 'log' */
  _type: string;
  /** The contract that emitted it */
  address: string;
  blockHash: string;
  blockNumber: number;
  /** The non-indexed arguments, hex */
  data: string;
  /** Its position in the block */
  index: number;
  /** True when a reorganisation removed it (receipts’ logs leave it out) */
  removed: boolean | null;
  /** The event’s topic hash, then the indexed arguments */
  topics: string[];
  transactionHash: string;
  transactionIndex: number;
}

/** A mined transaction’s receipt, as the interface’s receipt table has it (ethers’ TransactionReceipt.toJSON(); gas figures in wei as decimal strings) */
export interface TransactionReceipt {
  /** 'TransactionReceipt' */
  _type: string;
  blobGasPrice: string | null;
  blobGasUsed: string | null;
  blockHash: string;
  blockNumber: number;
  /** The contract a deployment created; null otherwise */
  contractAddress: string | null;
  cumulativeGasUsed: string;
  /** The signer */
  from: string;
  /** The effective gas price */
  gasPrice: string;
  gasUsed: string;
  /** The transaction hash */
  hash: string;
  /** The transaction’s position in its block */
  index: number;
  logs: TransactionLog[];
  logsBloom: string;
  /** The state root of pre-Byzantium chains; null otherwise */
  root: string | null;
  /** 1 success, 0 reverted (null before Byzantium) */
  status: number | null;
  /** The recipient; null for a deployment */
  to: string | null;
}

/** A transaction the caller’s wallet signed, sent through Laurel, as the chain has it now */
export interface TransactionState {
  blockExplorerUrl: string;
  /** Its block, once mined */
  blockNumber: number | null;
  /** The chain it was sent on */
  chain: string;
  /** Blocks from its block to the head, both counted; 0 until mined */
  confirmations: number;
  /** What the transaction created, once mined successfully and seen: execute-and-wait, GET /transactions/{hash} (a Laurel addition) */
  created: CreatedContracts | null;
  /** 'Timeout' when execute-and-wait's receipt did not come in time; 'Transaction reverted: <decoded reason>' when it reverted; 'Dropped: <why>' for a dropped transaction (the node's refusal, or how long the node had not known it) */
  error: string | null;
  /** Its signer */
  from: string;
  nonce: number;
  /** When Laurel last sent it again; null if it never did */
  rebroadcast_at: string | null;
  /** How many times Laurel sent it again because the node no longer had it (never sent, or dropped by a reorganisation or the node’s pool); 0 usually */
  rebroadcasts: number;
  /** The receipt, once mined and seen: execute-and-wait, GET /transactions/{hash} */
  receipt: TransactionReceipt | null;
  /** When it was sent through Laurel */
  sent_at: string;
  /** 'pending' (sent, not mined), 'success', 'failed' (mined, reverted) or 'dropped' (the node no longer knows it) */
  status: string;
  transactionHash: string;
}

/** A user's XP, badges, completed actions and (for one app) credit balances, from the index */
export interface UserProfileInfo {
  collected_badges: CollectedBadgeInfo[];
  /** Newest first */
  completed_actions: CompletedActionInfo[];
  /** Only with app_id: its credit and point tokens */
  credit_balances: CreditBalanceInfo[] | null;
  /** The user address */
  user_id: string;
  /** XP balance in formatted units (18 decimals) */
  xp_balance: string;
}

/** What each subscription pushes (all fields; a subscription receives the ones it selects). */
export interface SubscriptionResults {
  /** The page the query `leaderboard` answers for these arguments: now, then each time the index changes it (at most once per SUBSCRIPTION_PUSH_INTERVAL_MS) */
  leaderboardChanged: LeaderboardEntryInfo[];
  /** The profile the query `profile` answers for these arguments: now, then each time the index changes it (at most once per SUBSCRIPTION_PUSH_INTERVAL_MS) */
  profileChanged: UserProfileInfo;
  /** A transaction the caller’s wallet signed, sent through this service by any key: its state now, then at each change of its status (pending → success, failed or dropped; pending again when a reorganisation took its block away) */
  transactionStatus: TransactionState;
}

/** Each subscription's arguments. */
export interface SubscriptionArguments {
  /** The page the query `leaderboard` answers for these arguments: now, then each time the index changes it (at most once per SUBSCRIPTION_PUSH_INTERVAL_MS) */
  leaderboardChanged: {
    /** Rank this app's rewards (default token: its XP token) */
    app_id?: string | null;
    /** A chain this service serves, by name (e.g. `local`) */
    chain: string;
    /** Window end, seconds since the epoch, inclusive */
    end?: number | null;
    /** Page number, 1..10000 (default 1) */
    page?: number | null;
    /** Entries per page, 1..100 (default 10) */
    page_size?: number | null;
    /** Window start, seconds since the epoch, inclusive */
    start?: number | null;
    /** Rank rewards of this token (default: the app XP token; without app_id, XP of every app) */
    token_address?: string | null;
    /** Alias of token_address */
    token_id?: string | null;
  };
  /** The profile the query `profile` answers for these arguments: now, then each time the index changes it (at most once per SUBSCRIPTION_PUSH_INTERVAL_MS) */
  profileChanged: {
    /** Only this app's XP, badges and actions, plus its credit and point balances */
    app_id?: string | null;
    /** A chain this service serves, by name (e.g. `local`) */
    chain: string;
    /** The user (default: the calling account) */
    user_id?: string | null;
  };
  /** A transaction the caller’s wallet signed, sent through this service by any key: its state now, then at each change of its status (pending → success, failed or dropped; pending again when a reorganisation took its block away) */
  transactionStatus: {
    /** Chain name; when absent, the chain the caller last sent a transaction with this hash on */
    chain?: string | null;
    /** The transaction’s hash (transactionHash of an execute answer) */
    hash: string;
  };
}

/** Each subscription argument's GraphQL type, for the variables of the documents the client writes. */
export const subscriptionArgumentTypes = {
  leaderboardChanged: { app_id: 'String', chain: 'String!', end: 'Int', page: 'Int', page_size: 'Int', start: 'Int', token_address: 'String', token_id: 'String' },
  profileChanged: { app_id: 'String', chain: 'String!', user_id: 'String' },
  transactionStatus: { chain: 'String', hash: 'String!' },
} as const;
