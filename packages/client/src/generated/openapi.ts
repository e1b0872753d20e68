// Generated from openapi.json by `npm run openapi:emit` (openapi-typescript): do not edit.

export interface paths {
    "/key/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Step 1 of getting an API key: a message for the wallet to sign (POST /key/challenge)
         * @description GraphQL: `mutation { requestApiKeyChallenge }` runs the same operation. Unversioned ({auth_url}); needs no API key.
         */
        post: operations["requestApiKeyChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/key/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Step 2: the signed challenge in, a new API key out, shown once (POST /key/verify)
         * @description GraphQL: `mutation { verifyApiKeyChallenge }` runs the same operation. Unversioned ({auth_url}); needs no API key.
         */
        post: operations["verifyApiKeyChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The API keys of the logged-in account (GET /keys)
         * @description GraphQL: `query { apiKeys }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["apiKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revokes one of the logged-in account’s API keys: refused at once by this process, within a second by any other, and its WebSockets closed in every process (DELETE /keys/:id)
         * @description GraphQL: `mutation { revokeApiKey }` runs the same operation. Also served under /api/v1.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The chains this service serves
         * @description GraphQL: `query { chainList }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["chainList"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/app/new": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that creates an app (with its XP token) owned by the caller
         * @description GraphQL: `mutation { createApp }` runs the same operation. Also served under /api/v1.
         */
        post: operations["createApp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/app/operator/add": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that makes a wallet an operator of the caller's app: it may then reward and create tokens and badges
         * @description GraphQL: `mutation { addOperator }` runs the same operation. Also served under /api/v1. Signed by the app owner (the only sender the simulation lets through: another gets a `NotOwner` `transaction_error`, a wallet that already operates the app `AlreadyOperator`). Once mined, the operator builds rewards with its own API key and signs them with its own wallet, and the app listing names it among `operators`.
         */
        post: operations["addOperator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/app/operator/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that takes an operator's rights on the caller's app away
         * @description GraphQL: `mutation { removeOperator }` runs the same operation. Also served under /api/v1. Signed by the app owner (another sender gets a `NotOwner` `transaction_error`, a wallet that does not operate the app `UnknownOperator`). Once mined, every build of the former operator for the app is refused (`NotOperator`), and its transactions signed before but not yet mined revert.
         */
        post: operations["removeOperator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The apps the caller owns or operates, each with its operators
         * @description GraphQL: `query { apps }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["apps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/badge/new": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that creates a badge (ERC-721 collection) of an app
         * @description GraphQL: `mutation { createBadge }` runs the same operation. Also served under /api/v1.
         */
        post: operations["createBadge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/badges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An app's badges
         * @description GraphQL: `query { badges }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["badges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credit/new": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that creates a credit (or point) token of an app; the supply goes to the caller
         * @description GraphQL: `mutation { createCreditToken }` runs the same operation. Also served under /api/v1.
         */
        post: operations["createCreditToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credit/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that lets spender_address transfer up to amount of the caller's tokens
         * @description GraphQL: `mutation { approveCredit }` runs the same operation. Also served under /api/v1.
         */
        post: operations["approveCredit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credit/permit-data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The EIP-2612 permit digest a holder signs to allow a spender
         * @description GraphQL: `query { creditPermitData }` runs the same operation. Also served under /api/v1.
         */
        post: operations["creditPermitData"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credit/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that uses a holder's signed permit and moves the tokens to the receiver (the caller, who sends it and pays its gas)
         * @description GraphQL: `mutation { transferCredit }` runs the same operation. Also served under /api/v1. The original service’s transfer endpoint for a signed permit: the receiver (the caller) sends the transaction and pays its gas; the holder only signed the permit. A bad permit (expired, not signed by the holder for exactly this receiver, amount and deadline) is a `transaction_error` with the decoded revert.
         */
        post: operations["transferCredit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credit/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A holder's balance of a credit or point token
         * @description GraphQL: `query { creditBalance }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        post: operations["creditBalance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credit/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An app's credit and point tokens
         * @description GraphQL: `query { creditTokens }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["creditTokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reward/badge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that rewards badges (by badge_name or badge_id) for an action
         * @description GraphQL: `mutation { rewardBadge }` runs the same operation. Also served under /api/v1.
         */
        post: operations["rewardBadge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reward/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds one transaction (App.batch) that makes many rewards of an app, XP, badges, credit and point tokens mixed, in order, all or none: one Rewarded event each. An invalid or reverting item is named by its index
         * @description GraphQL: `mutation { rewardBatch }` runs the same operation. Also served under /api/v1.
         */
        post: operations["rewardBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reward/credit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that transfers (or, with mint, mints) an app's credit token to a user
         * @description GraphQL: `mutation { rewardCredit }` runs the same operation. Also served under /api/v1.
         */
        post: operations["rewardCredit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reward/point": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that mints an app's point token to a user for an action
         * @description GraphQL: `mutation { rewardPoint }` runs the same operation. Also served under /api/v1.
         */
        post: operations["rewardPoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reward/XP": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Builds the transaction that mints an app's XP to a user for an action
         * @description GraphQL: `mutation { rewardXP }` runs the same operation. Also served under /api/v1.
         */
        post: operations["rewardXP"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Broadcasts a signed transaction and answers once the node accepted it
         * @description GraphQL: `mutation { executeTransaction }` runs the same operation. Also served under /api/v1.
         */
        post: operations["executeTransaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/execute-and-wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Broadcasts a signed transaction and waits for its receipt (or a timeout)
         * @description GraphQL: `mutation { executeTransactionAndWait }` runs the same operation. Also served under /api/v1. The receipt did not come within EXECUTE_WAIT_TIMEOUT_SECONDS: 200 with {status:'failed', error:'Timeout', transactionHash, blockExplorerUrl}, as the original service answers (the transaction is out; GET /v1/transactions/{hash} tells what became of it).
         */
        post: operations["executeTransactionAndWait"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The transactions the caller’s wallet signed and sent through this service (by any of its keys), as recorded, newest first: filtered by chain, status and sender, paged
         * @description GraphQL: `query { transactions }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it. Pages of `page_size` (default 20), newest first (the order Laurel recorded them in); `total` counts every match. `status` is as recorded (receipt jobs record it): GET /v1/transactions/{hash} reads the chain now.
         */
        get: operations["transactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{hash}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A transaction the caller’s wallet signed, sent through this service by any key: pending, success, failed or dropped, with its receipt once mined
         * @description GraphQL: `query { transactionStatus }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it. For transactions sent through this service with the caller’s API key (execute or execute-and-wait); any other hash is 404. `status` is the chain’s word now (a receipt read at each call); `created` lists what a successful transaction created.
         */
        get: operations["transactionStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/reservations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Frees the nonces of the caller’s builds on a chain that were never sent, so the next build does not wait behind them
         * @description GraphQL: `mutation { releaseNonceReservations }` runs the same operation. Also served under /api/v1. Each build reserves its nonce until it is sent (or for NONCE_RESERVATION_TTL_SECONDS); builds never sent would make the next sent transaction wait behind them (409 nonce_gap). This frees the caller’s unsent ones on `chain`; builds already sent are kept.
         */
        delete: operations["releaseNonceReservations"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account’s webhook signing secret (GET /webhook/secret)
         * @description GraphQL: `query { webhookSecret }` runs the same operation. Also served under /api/v1.
         */
        get: operations["webhookSecret"];
        put?: never;
        /**
         * Replaces the account’s webhook secret with a new one, keeping the old one valid for `overlap_seconds` (POST /webhook/secret)
         * @description GraphQL: `mutation { rotateWebhookSecret }` runs the same operation. Also served under /api/v1.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Registers a webhook, disabled until verified with testWebhook (POST /webhook)
         * @description GraphQL: `mutation { createWebhook }` runs the same operation. Also served under /api/v1.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account’s webhooks (GET /webhooks)
         * @description GraphQL: `query { webhooks }` runs the same operation. Also served under /api/v1.
         */
        get: operations["webhooks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One of the account’s webhooks (GET /webhook/:id)
         * @description GraphQL: `query { webhook }` runs the same operation. Also served under /api/v1.
         */
        get: operations["webhook"];
        /**
         * Changes a webhook’s url or events; a new url is disabled until verified again (PATCH /webhook/:id)
         * @description GraphQL: `mutation { updateWebhook }` runs the same operation. Also served under /api/v1. The original service’s “Update an existing webhook”: the same operation as PATCH (fields left out keep their value).
         */
        put: operations["replaceWebhook"];
        post?: never;
        /**
         * Deletes a webhook and its logs; its pending deliveries are cancelled (DELETE /webhook/:id)
         * @description GraphQL: `mutation { deleteWebhook }` runs the same operation. Also served under /api/v1.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Changes a webhook’s url or events; a new url is disabled until verified again (PATCH /webhook/:id)
         * @description GraphQL: `mutation { updateWebhook }` runs the same operation. Also served under /api/v1.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v1/webhook/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sends the `test` call; a receiver answering the challenge activates (or re-activates) the webhook (POST /webhook/:id/test)
         * @description GraphQL: `mutation { testWebhook }` runs the same operation. Also served under /api/v1.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook’s call attempts, newest first (GET /webhook/:id/logs)
         * @description GraphQL: `query { webhookLogs }` runs the same operation. Also served under /api/v1.
         */
        get: operations["webhookLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook/{id}/logs/{log_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sends a logged event again now, same idempotency key, as a new logged attempt (POST /webhook/:id/logs/:log_id/retry)
         * @description GraphQL: `mutation { retryWebhookLog }` runs the same operation. Also served under /api/v1.
         */
        post: operations["retryWebhookLog"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's profile on a chain (the caller's by default), across apps or for one app
         * @description GraphQL: `query { profile }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["profile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leaderboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Users by amount rewarded in a window (start..end inclusive, seconds since the epoch), highest first, ties by address
         * @description GraphQL: `query { leaderboard }` runs the same operation. Also served under /api/v1. A read: read-only keys may call it.
         */
        get: operations["leaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    transaction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A transaction of the account has its receipt
         * @description Sent once per receipt, when the transaction has its chain's confirmations (again, with a new idempotency key, if a reorganisation replaced its block and it is mined again). POSTed to every active webhook of the account subscribed to the event, with a 5 s timeout and at most 3 redirects, from Laurel's HTTPS client (the url needs a certificate from a CA Laurel trusts). A call answered otherwise than 2xx is retried with exponential backoff, 5 attempts in all; when all fail the webhook is deactivated (POST /v1/webhook/{id}/test re-activates it). Each attempt is in GET /v1/webhook/{id}/logs. Verify the signature on the raw body before parsing it.
         */
        post: operations["transactionWebhookCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    test: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The verification challenge (POST /v1/webhook/{id}/test)
         * @description Sent to the one webhook being verified or re-activated, signed with the current secret alone, not retried. A test call verifies the webhook when the answer meets all four rules: 1. the url has a valid certificate from a CA Laurel trusts; 2. the status is 2xx; 3. the content-type is application/json; 4. the body is JSON with one field, "challenge", whose value is the request's x-laurel-signature header. Otherwise POST /v1/webhook/{id}/test answers 422 with the reason, the rule it breaks and these rules, and the webhook stays disabled.
         */
        post: operations["testWebhookCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        ZodIssue: {
            code: string;
            path: (string | number)[];
            message: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Shape C: zod’s issues */
        ValidationFailureC: {
            error: {
                issues: components["schemas"]["ZodIssue"][];
            };
        };
        /** @description Shape A: the message, and the failure’s own fields */
        FailureA: {
            /** @enum {string} */
            status: "failed";
            error: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The message alone */
        FailureBare: {
            error: string;
        };
        /** @description Shape A: `error` sums up the issues */
        ValidationFailureA: {
            /** @enum {string} */
            status: "failed";
            error: string;
            issues?: components["schemas"]["ZodIssue"][];
        };
        /**
         * @description A chain this service serves, by name (e.g. `local`)
         * @example local
         */
        Chain: string;
        /** @description Shape B: `parameter` and `path` name the field */
        ValidationFailureB: {
            /** @enum {boolean} */
            success: false;
            error: {
                /** @enum {string} */
                code: "validation_error";
                message: string;
                issues: {
                    code: string;
                    message: string;
                    parameter: string;
                    path: string;
                }[];
            };
        };
        /** @description Shape B: the code, the message and the failure’s own fields */
        FailureB: {
            /** @enum {boolean} */
            success: false;
            error: {
                code: string;
                message: string;
            } & {
                [key: string]: unknown;
            };
        };
        /** @description The zod result: `{success:false, error: ZodError}` */
        ValidationFailureZod: {
            /** @enum {boolean} */
            success: false;
            error: {
                issues: components["schemas"]["ZodIssue"][];
                /** @enum {string} */
                name: "ZodError";
            };
        };
        RewardBatchItem: {
            /**
             * @description xp: the fields of POST /reward/XP, without chain and app_id
             * @enum {string}
             */
            kind: "xp";
            /**
             * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
             * @example daily-login
             */
            action_id: string;
            /**
             * @description The user rewarded
             * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
             */
            receiver: string;
            /**
             * @description XP in formatted units (> 0; XP has 18 decimals)
             * @example 1.5
             */
            amount: number;
        } | ({
            /**
             * @description badge: the fields of POST /reward/badge, without chain and app_id
             * @enum {string}
             */
            kind: "badge";
            /**
             * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
             * @example daily-login
             */
            action_id: string;
            /**
             * @description The user rewarded
             * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
             */
            receiver: string;
            /** @description Number of badges (>= 1), one ERC-721 token each */
            amount: number;
            /** @description The badge, by name within the app (or badge_id) */
            badge_name?: string;
            /** @description The badge contract address (or badge_name) */
            badge_id?: string;
            /** @description URI of the new tokens (max 512); absent: the badge's base URI + token id */
            base_uri?: string;
        } & (unknown | unknown)) | {
            /**
             * @description credit: the fields of POST /reward/credit, without chain and app_id
             * @enum {string}
             */
            kind: "credit";
            /**
             * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
             * @example daily-login
             */
            action_id: string;
            /**
             * @description The user rewarded
             * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
             */
            receiver: string;
            /** @description The credit token */
            token_address: string;
            /**
             * @description Amount in formatted units (> 0)
             * @example 1.5
             */
            amount: number;
            /**
             * @description false (default): transfer the sender's tokens (needs an allowance for the app); true: mint
             * @default false
             */
            mint?: boolean;
        } | {
            /**
             * @description point: the fields of POST /reward/point, without chain and app_id
             * @enum {string}
             */
            kind: "point";
            /**
             * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
             * @example daily-login
             */
            action_id: string;
            /**
             * @description The user rewarded
             * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
             */
            receiver: string;
            /** @description The point token */
            token_address: string;
            /**
             * @description Amount in formatted units (> 0)
             * @example 1.5
             */
            amount: number;
        };
        /** @description A new API key: shown once, send it in the X-API-KEY header */
        IssuedApiKey: {
            api_key: string;
        };
        /** @description An API key of the logged-in account (the key itself is never shown again) */
        ApiKeyInfo: {
            id: string;
            /** @description The first characters of the key, to tell keys apart */
            prefix: string;
            /** Format: date-time */
            created_at: string;
            last_used_at?: string | null;
            /** @description Set once the key is revoked */
            revoked_at?: string | null;
            /** @description `full`: every operation; `read`: the reads only */
            scope: string;
            /** @description When the key stops being accepted; null: never */
            expires_at?: string | null;
        };
        /** @description A blockchain network this service serves */
        ChainInfo: {
            /** @description The `chain` value requests use */
            name: string;
            chainId: number;
            /** @description Block explorer base URL; transaction links are <explorerUrl>/tx/<hash> */
            explorerUrl: string;
            /** @description Address of the Laurel AppFactory on this chain */
            factoryAddress: string;
            /** @description Blocks a transaction needs before it counts as confirmed */
            confirmations: number;
        };
        /** @description An unsigned EIP-1559 transaction: sign it with the sender wallet as given, then send it to executeTransaction */
        UnsignedTransaction: {
            /** @description The contract called */
            to: string;
            /** @description Hex-encoded call data */
            data: string;
            /** @description Decimal integer (wei) */
            maxPriorityFeePerGas: string;
            /** @description Decimal integer (wei) */
            maxFeePerGas: string;
            /** @description Decimal integer: the simulated gas use plus 20 %, within what a block holds */
            gasLimit: string;
            /** @description Same as gasLimit; only in credit creation, approval, transfer and ERC-20 reward responses */
            gas?: string | null;
            /** @description Reserved for this transaction: sign and send it soon */
            nonce: number;
            chainId: number;
            /** @description Transaction type (2: EIP-1559) */
            type: number;
        };
        /** @description A Laurel app the caller owns or operates */
        AppInfo: {
            /** @description The app id: its App contract address */
            id: string;
            /** @description The app name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            name: string;
            /** @description The app owner wallet */
            owner: string;
            /** @description The app's XP token address */
            xp_token: string;
            /** @description The wallets the owner made operators (App.addOperator, not removed since), by address: they reward and create tokens and badges, but cannot manage operators */
            operators: string[];
        };
        /** @description A badge (ERC-721 collection) of an app */
        BadgeInfo: {
            /** @description The badge contract address */
            id: string;
            /** @description The badge name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            name: string;
            /** @description The base URI of its token URIs; null when none. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            metadataURI?: string | null;
            /** @description The JSON object served at metadataURI (https://, or ipfs:// through the gateway), fetched in the background; null until it is known, or when no fetch has succeeded */
            metadata?: Record<string, never> | null;
            /** @description Users holding at least one of its tokens */
            holders: number;
        };
        /** @description EIP-2612 permit data: the holder signs `hashToSign` (a raw EIP-712 digest) */
        PermitData: {
            /** @description The holder's permit nonce on the token, decimal */
            nonce: string;
            /** @description The token's EIP-712 domain separator, hex */
            domainSeparator: string;
            /** @description Unix timestamp (seconds) after which the permit is void */
            deadline: number;
            /** @description EIP-712 digest of Permit(owner, spender, value, nonce, deadline), hex */
            hashToSign: string;
            /** @description The domain `hashToSign` is on, read from the token (for signTypedData with PERMIT types) */
            domain: components["schemas"]["PermitDomainInfo"];
        };
        /** @description The token's EIP-712 domain (its eip712Domain(), ERC-5267): sign Permit on it with eth_signTypedData_v4 */
        PermitDomainInfo: {
            /** @description The domain's name: the token's name, whatever its length. A token created outside Laurel's builders may name itself with bytes that are not UTF-8: they read as U+FFFD here, the domain no longer hashes to `domainSeparator`, and only the raw digest `hashToSign` can be signed */
            name: string;
            version: string;
            chainId: number;
            /** @description The token */
            verifyingContract: string;
        };
        /** @description One of an app's credit or point tokens */
        CreditTokenInfo: {
            /** @description Token address */
            id: string;
            /** @description The token name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            name: string;
            /** @description The token symbol. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            symbol: string;
            decimals: number;
            /** @description True for a non-transferable point token */
            is_point: boolean;
        };
        /** @description The outcome of broadcasting a signed transaction */
        TransactionExecution: {
            /** @description 'success' or 'failed' */
            status: string;
            transactionHash: string;
            blockExplorerUrl: string;
            /** @description The receipt, once mined and seen: execute-and-wait, GET /transactions/{hash} */
            receipt?: components["schemas"]["TransactionReceipt"] | null;
            /** @description 'Timeout' when execute-and-wait's receipt did not come in time; 'Transaction reverted: <decoded reason>' when it reverted; 'Dropped: <why>' for a dropped transaction (the node's refusal, or how long the node had not known it) */
            error?: string | null;
            /** @description What the transaction created, once mined successfully and seen: execute-and-wait, GET /transactions/{hash} (a Laurel addition) */
            created?: components["schemas"]["CreatedContracts"] | null;
        };
        /** @description A mined transaction’s receipt, as the interface’s receipt table has it (ethers’ TransactionReceipt.toJSON(); gas figures in wei as decimal strings) */
        TransactionReceipt: {
            /** @description 'TransactionReceipt' */
            _type: string;
            blockHash: string;
            blockNumber: number;
            /** @description The contract a deployment created; null otherwise */
            contractAddress?: string | null;
            cumulativeGasUsed: string;
            /** @description The signer */
            from: string;
            /** @description The effective gas price */
            gasPrice: string;
            blobGasUsed?: string | null;
            blobGasPrice?: string | null;
            gasUsed: string;
            /** @description The transaction hash */
            hash: string;
            /** @description The transaction’s position in its block */
            index: number;
            logs: components["schemas"]["TransactionLog"][];
            logsBloom: string;
            /** @description The state root of pre-Byzantium chains; null otherwise */
            root?: string | null;
            /** @description 1 success, 0 reverted (null before Byzantium) */
            status?: number | null;
            /** @description The recipient; null for a deployment */
            to?: string | null;
        };
        /** @description A log (event) of a mined transaction, as ethers’ Log.toJSON() has it */
        TransactionLog: {
            /** @description 'log' */
            _type: string;
            /** @description The contract that emitted it */
            address: string;
            blockHash: string;
            blockNumber: number;
            /** @description The non-indexed arguments, hex */
            data: string;
            /** @description Its position in the block */
            index: number;
            /** @description True when a reorganisation removed it (receipts’ logs leave it out) */
            removed?: boolean | null;
            /** @description The event’s topic hash, then the indexed arguments */
            topics: string[];
            transactionHash: string;
            transactionIndex: number;
        };
        /** @description What a mined transaction created (from its receipt’s events), by address */
        CreatedContracts: {
            /** @description Apps (AppCreated): the app_id of later calls */
            apps: string[];
            /** @description Badge collections (BadgeCreated): badge_id */
            badges: string[];
            /** @description Credit and point tokens (CreditTokenCreated): token_id */
            credit_tokens: string[];
        };
        /** @description A transaction the caller’s wallet signed, sent through Laurel, as Laurel recorded it */
        TransactionSummary: {
            transactionHash: string;
            blockExplorerUrl: string;
            /** @description The chain it was sent on */
            chain: string;
            /** @description Its signer */
            from: string;
            /** @description The recipient; null for a deployment */
            to?: string | null;
            nonce: number;
            /** @description As recorded: 'pending', 'success', 'failed' or 'dropped' (GET /v1/transactions/{hash} reads the chain now) */
            status: string;
            /** @description Its block, once its receipt is recorded */
            blockNumber?: number | null;
            /**
             * Format: date-time
             * @description When it was sent through Laurel
             */
            sent_at: string;
        };
        /** @description A transaction the caller’s wallet signed, sent through Laurel, as the chain has it now */
        TransactionState: {
            /** @description 'pending' (sent, not mined), 'success', 'failed' (mined, reverted) or 'dropped' (the node no longer knows it) */
            status: string;
            transactionHash: string;
            blockExplorerUrl: string;
            /** @description The receipt, once mined and seen: execute-and-wait, GET /transactions/{hash} */
            receipt?: components["schemas"]["TransactionReceipt"] | null;
            /** @description 'Timeout' when execute-and-wait's receipt did not come in time; 'Transaction reverted: <decoded reason>' when it reverted; 'Dropped: <why>' for a dropped transaction (the node's refusal, or how long the node had not known it) */
            error?: string | null;
            /** @description What the transaction created, once mined successfully and seen: execute-and-wait, GET /transactions/{hash} (a Laurel addition) */
            created?: components["schemas"]["CreatedContracts"] | null;
            /** @description The chain it was sent on */
            chain: string;
            /** @description Its signer */
            from: string;
            nonce: number;
            /** @description Blocks from its block to the head, both counted; 0 until mined */
            confirmations: number;
            /** @description Its block, once mined */
            blockNumber?: number | null;
            /**
             * Format: date-time
             * @description When it was sent through Laurel
             */
            sent_at: string;
            /** @description How many times Laurel sent it again because the node no longer had it (never sent, or dropped by a reorganisation or the node’s pool); 0 usually */
            rebroadcasts: number;
            /** @description When Laurel last sent it again; null if it never did */
            rebroadcast_at?: string | null;
        };
        /** @description An HTTPS endpoint that receives the account’s events once verified */
        WebhookInfo: {
            id: number;
            url: string;
            /** @description Subscribed events; empty: every event */
            events: string[];
            /** @description True until verified (POST /webhook/:id/test), and again once deactivated */
            disabled: boolean;
            /**
             * Format: date-time
             * @description When it was last disabled: its creation (a webhook starts disabled), a url change or a deactivation; kept once active again
             */
            disabled_at: string;
            /** Format: date-time */
            created_at: string;
        };
        /** @description One attempt of a webhook call and its outcome */
        WebhookLogEntry: {
            /** @description Give it to retryWebhookLog to send the event again */
            id: string;
            /** @description The event’s payload (null for `test`) */
            payload?: unknown | null;
            webhook_id: number;
            event: string;
            /** @description Stable across every attempt of the event (also the `webhook-id` header) */
            idempotency_key: string;
            url: string;
            /** @description 1 for the first attempt of the event to this webhook */
            attempt: number;
            successful: boolean;
            response_code?: number | null;
            error_message?: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description A user's XP, badges, completed actions and (for one app) credit balances, from the index */
        UserProfileInfo: {
            /** @description The user address */
            user_id: string;
            /** @description XP balance in formatted units (18 decimals) */
            xp_balance: string;
            collected_badges: components["schemas"]["CollectedBadgeInfo"][];
            /** @description Newest first */
            completed_actions: components["schemas"]["CompletedActionInfo"][];
            /** @description Only with app_id: its credit and point tokens */
            credit_balances?: components["schemas"]["CreditBalanceInfo"][] | null;
        };
        /** @description A badge collection the user holds tokens of */
        CollectedBadgeInfo: {
            /** @description The badge contract address */
            id: string;
            /** @description The badge name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            name: string;
            /** @description The base URI of its token URIs; null when none. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            metadataURI?: string | null;
            /** @description The JSON object served at metadataURI (https://, or ipfs:// through the gateway), fetched in the background; null until it is known, or when no fetch has succeeded */
            metadata?: Record<string, never> | null;
        };
        /** @description One reward the user received for an action (one App `Rewarded` event) */
        CompletedActionInfo: {
            /** @description The action name (action_id) */
            name: string;
            /** @description XP rewarded in formatted units (18 decimals); "0" for badge, credit and point rewards */
            xp_rewarded: string;
            /** @description Block time, seconds since the epoch, as a decimal string */
            createdAt: string;
        };
        /** @description The user's balance of one credit or point token of the app */
        CreditBalanceInfo: {
            /** @description The token address */
            token_id: string;
            /** @description The token name. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            token_name: string;
            /** @description Raw base units */
            token_balance: string;
            /** @description Formatted units (decimal-adjusted) */
            token_balance_formatted: string;
            /** @description The token symbol. Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain) */
            token_symbol: string;
            token_decimals: number;
        };
        /** @description A user and the amount rewarded to them in the leaderboard window */
        LeaderboardEntryInfo: {
            /** @description The user address */
            user: string;
            /** @description The amount rewarded in the window, formatted units (XP: 18 decimals) */
            xp_rewarded: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    requestApiKeyChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Wallet address (0x optional, any case)
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    public_address: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @description Sign exactly this text (EIP-191 personal_sign), then call verifyApiKeyChallenge */
                        challenge: string;
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureC"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description Over KEY_REQUESTS_PER_CLIENT key requests a minute from this client (or KEY_CHALLENGES_PER_WALLET challenges a minute for this wallet): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    verifyApiKeyChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The wallet’s EIP-191 (personal_sign) signature of the challenge, hex */
                    signature: string;
                    /**
                     * @description The wallet address the challenge was issued for
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    public_address: string;
                    /**
                     * @description What the key may run (default `full`: everything). `read`: only the reads (profiles, leaderboards, balances, tokens, badges, apps, chains, transaction status and listing, subscriptions, the key list); anything else answers 403. A key for a browser page.
                     * @enum {string}
                     */
                    scope?: "full" | "read";
                    /** @description Seconds until the key expires, 1..API_KEY_MAX_LIFETIME_SECONDS (default: never). An expired key answers 401 `API key expired`. */
                    expires_in_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedApiKey"];
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureC"];
                };
            };
            /** @description `Signature verification failed`: not the wallet’s signature of one of its open challenges */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureBare"];
                };
            };
            /** @description The wallet holds API_KEYS_PER_WALLET active keys: revoke one first (the signed challenge stays usable) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureBare"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description Over KEY_REQUESTS_PER_CLIENT key requests a minute from this client (or KEY_CHALLENGES_PER_WALLET challenges a minute for this wallet): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureBare"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    apiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        keys: components["schemas"]["ApiKeyInfo"][];
                    };
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The key’s id (from GET /v1/keys) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        key: components["schemas"]["ApiKeyInfo"];
                    };
                };
            };
            /**
             * @description - Invalid parameters (zod’s issues), or a malformed `Idempotency-Key`
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet has no key with this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    chainList: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        chains: components["schemas"]["ChainInfo"][];
                    };
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    createApp: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The app name (1..256)
                     * @example My game
                     */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    addOperator: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The app (its contract address); the caller must own it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /**
                     * @description The operator wallet (an operator rewards and creates tokens and badges, never manages operators)
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    operator_address: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "app_not_found";
                        };
                    };
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    removeOperator: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The app (its contract address); the caller must own it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /**
                     * @description The operator wallet (an operator rewards and creates tokens and badges, never manages operators)
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    operator_address: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "app_not_found";
                        };
                    };
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    apps: {
        parameters: {
            query: {
                /** @description A chain this service serves, by name (e.g. `local`) */
                chain: components["schemas"]["Chain"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        apps: components["schemas"]["AppInfo"][];
                    };
                };
            };
            /** @description Invalid parameters (zod’s issues) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    createBadge: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The app (App contract address)
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /** @description The badge name (1..256) */
                    badge_name: string;
                    /** @description Base URI of the badge's token URIs (token URI = base URI + token id; max 512) */
                    base_uri?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    badges: {
        parameters: {
            query: {
                /** @description A chain this service serves, by name (e.g. `local`) */
                chain: components["schemas"]["Chain"];
                /** @description The app (App contract address) */
                app_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        badges: components["schemas"]["BadgeInfo"][];
                    };
                };
            };
            /** @description Invalid parameters (zod’s issues) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    createCreditToken: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The app (its contract address) the token belongs to; the caller must operate it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /** @description 1..512 characters */
                    token_name: string;
                    /** @description 1..512 characters */
                    token_symbol: string;
                    /**
                     * @description Initial supply in formatted units (>= 0), minted to the caller
                     * @example 1000
                     */
                    token_supply: number;
                    /** @description Decimals of the token, 0..18 */
                    token_decimals: number;
                    /** @description True for a non-transferable point token */
                    token_is_point: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "app_not_found";
                        };
                    };
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    approveCredit: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /** @description The credit token (its address) */
                    token_id: string;
                    /** @description The token holder: the caller’s own wallet, which signs the approval */
                    holder_address: string;
                    /** @description Who may then transfer up to `amount` from the holder */
                    spender_address: string;
                    /**
                     * @description Amount in formatted units (> 0), converted exactly with the token’s decimals
                     * @example 1.5
                     */
                    amount: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /** @description The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "token_not_found";
                        };
                    };
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    creditPermitData: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /** @description The credit token (its address) */
                    token_id: string;
                    /** @description The token holder, who signs `hashToSign` */
                    holder_address: string;
                    /** @description The spender the permit allows */
                    receiver_address: string;
                    /**
                     * @description Amount in formatted units (> 0), converted exactly with the token’s decimals
                     * @example 1.5
                     */
                    amount: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        permitData: components["schemas"]["PermitData"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /** @description The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "token_not_found";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    transferCredit: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /** @description The credit token (its address) */
                    token_id: string;
                    /** @description The token holder, who signed the permit */
                    holder_address: string;
                    /** @description The permit’s spender, who receives the tokens: the caller’s own wallet, which sends the transaction and pays its gas */
                    receiver_address: string;
                    /**
                     * @description The permitted amount in formatted units, as given to POST /credit/permit-data
                     * @example 1.5
                     */
                    amount: number;
                    /** @description The permit’s deadline from POST /credit/permit-data (seconds since the epoch), as signed */
                    deadline: number;
                    /** @description The holder’s signature of `hashToSign` from POST /credit/permit-data: {r, s, v} */
                    signedPermit: {
                        /** @description The signature’s r: 0x + 64 hex digits */
                        r: string;
                        /** @description The signature’s s: 0x + 64 hex digits */
                        s: string;
                        /** @description The recovery id: 27 or 28 (0 or 1 are read as 27 or 28) */
                        v: number;
                    };
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /** @description The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "token_not_found";
                        };
                    };
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    creditBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /** @description The credit token (its address) */
                    token_id: string;
                    /** @description The holder whose balance is read */
                    user_id: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        /** @description Raw (base units), decimal */
                        balance: string;
                        /** @description Adjusted by decimals */
                        balance_formatted: string;
                        decimals: number;
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "token_not_found";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    creditTokens: {
        parameters: {
            query: {
                /** @description A chain this service serves, by name (e.g. `local`) */
                chain: components["schemas"]["Chain"];
                /** @description The app (its contract address) */
                app_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        tokens: components["schemas"]["CreditTokenInfo"][];
                    };
                };
            };
            /** @description Invalid parameters (zod’s issues) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "app_not_found";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    rewardBadge: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
                     * @example daily-login
                     */
                    action_id: string;
                    /**
                     * @description The user rewarded
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    receiver: string;
                    /**
                     * @description The app (App contract address); the caller must operate it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /** @description Number of badges (>= 1), one ERC-721 token each */
                    amount: number;
                    /** @description The badge, by name within the app (or badge_id) */
                    badge_name?: string;
                    /** @description The badge contract address (or badge_name) */
                    badge_id?: string;
                    /** @description URI of the new tokens (max 512); absent: the badge's base URI + token id */
                    base_uri?: string;
                } & (unknown | unknown);
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureZod"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`)
             *     - No badge of the app has this `badge_name` (or `badge_id`)
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - Several badges of the app have this `badge_name`: `badges` lists them `{id, name}`; give `badge_id`
             *     - A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer
             */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    rewardBatch: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The app (App contract address); the caller must operate it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /** @description The rewards, made in this order in one transaction, all or none; at most REWARD_BATCH_MAX_ITEMS (default 200). An invalid item is named by its index (path items.<index>.<field>) */
                    items: components["schemas"]["RewardBatchItem"][];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /**
             * @description - `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`)
             *     - No badge of the app has this `badge_name` (or `badge_id`)
             *     - The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards)
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "app_not_found" | "badge_not_found" | "token_not_found";
                        };
                    };
                };
            };
            /**
             * @description - Several badges of the app have this `badge_name`: `badges` lists them `{id, name}`; give `badge_id`
             *     - A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer
             */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "too_many_badges" | "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The app was deployed before batch rewards (its contract has no `batch`): reward with the single endpoints
             *     - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "batch_unsupported" | "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    rewardCredit: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
                     * @example daily-login
                     */
                    action_id: string;
                    /**
                     * @description The user rewarded
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    receiver: string;
                    /**
                     * @description The app (App contract address); the caller must operate it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /** @description The credit token */
                    token_address: string;
                    /**
                     * @description Amount in formatted units (> 0)
                     * @example 1.5
                     */
                    amount: number;
                    /**
                     * @description false (default): transfer the sender's tokens (needs an allowance for the app); true: mint
                     * @default false
                     */
                    mint?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureB"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden";
                        };
                    };
                };
            };
            /**
             * @description - `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`)
             *     - The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards)
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "app_not_found" | "token_not_found";
                        };
                    };
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_progress";
                        };
                    };
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "transaction_error" | "idempotency_key_reused";
                        };
                    };
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["FailureB"] & {
                        error: {
                            /** @enum {string} */
                            code: "chain_unavailable";
                        };
                    }) | components["schemas"]["FailureA"];
                };
            };
        };
    };
    rewardPoint: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
                     * @example daily-login
                     */
                    action_id: string;
                    /**
                     * @description The user rewarded
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    receiver: string;
                    /**
                     * @description The app (App contract address); the caller must operate it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /** @description The point token */
                    token_address: string;
                    /**
                     * @description Amount in formatted units (> 0)
                     * @example 1.5
                     */
                    amount: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureZod"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`)
             *     - The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards)
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    rewardXP: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: components["schemas"]["Chain"];
                    /**
                     * @description The action rewarded (1..32 characters, at most 32 UTF-8 bytes)
                     * @example daily-login
                     */
                    action_id: string;
                    /**
                     * @description The user rewarded
                     * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
                     */
                    receiver: string;
                    /**
                     * @description The app (App contract address); the caller must operate it
                     * @example 0x856e4424f806D16E8CBC702B3c0F2ede5468eae5
                     */
                    app_id: string;
                    /**
                     * @description XP in formatted units (> 0; XP has 18 decimals)
                     * @example 1.5
                     */
                    amount: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        unsignedTransaction: components["schemas"]["UnsignedTransaction"];
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureZod"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The transaction’s simulation reverted: `transaction_error` has the decoded revert (reason, function, contract, error name)
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    executeTransaction: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain?: components["schemas"]["Chain"] & unknown;
                    /** @description The signed transaction, 0x-prefixed hex (as eth_sendRawTransaction takes it) */
                    signed_transaction: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionExecution"];
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureC"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The node refused the transaction’s nonce (`reason`, the node’s message, `sender`, `transactionHash`)
             *     - The nonces before this transaction’s are missing (`reason: nonce_gap`, `next_nonce`, `missing_nonces`; `rebroadcasting`: those Laurel sent, the chain dropped, and Laurel sends again): nothing was sent
             *     - A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer
             */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The node refused the transaction (`reason`: funds, gas, fees, signature; the node’s message)
             *     - The transaction is signed by another wallet than the one Laurel built it for (`reason: signer_mismatch`, `signer`, `built_for`): nothing was sent
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable; the transaction stays recorded…` (with `chain` and `transactionHash`): the database went away during the send, once the transaction was recorded (whether or not it went out); Laurel keeps following it and sends it if the node does not have it (sending it again is safe)
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    executeTransactionAndWait: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain?: components["schemas"]["Chain"] & unknown;
                    /** @description The signed transaction, 0x-prefixed hex (as eth_sendRawTransaction takes it) */
                    signed_transaction: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionExecution"];
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureC"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The node refused the transaction’s nonce (`reason`, the node’s message, `sender`, `transactionHash`)
             *     - The nonces before this transaction’s are missing (`reason: nonce_gap`, `next_nonce`, `missing_nonces`; `rebroadcasting`: those Laurel sent, the chain dropped, and Laurel sends again): nothing was sent
             *     - A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer
             */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The node refused the transaction (`reason`: funds, gas, fees, signature; the node’s message)
             *     - The transaction is signed by another wallet than the one Laurel built it for (`reason: signer_mismatch`, `signer`, `built_for`): nothing was sent
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable; the transaction stays recorded…` (with `chain` and `transactionHash`): the database went away during the send, once the transaction was recorded (whether or not it went out); Laurel keeps following it and sends it if the node does not have it (sending it again is safe)
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    transactions: {
        parameters: {
            query?: {
                /** @description Only the transactions sent on this chain */
                chain?: components["schemas"]["Chain"] & unknown;
                /** @description Only the transactions Laurel has recorded with this status */
                status?: "pending" | "success" | "failed" | "dropped";
                /** @description Only the transactions this wallet signed */
                sender?: string;
                /** @description Page number, 1..10000 (default 1) */
                page?: string;
                /** @description Entries per page, 1..100 (default 20) */
                page_size?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @description How many transactions match the filters, on every page */
                        total: number;
                        page: number;
                        page_size: number;
                        data: components["schemas"]["TransactionSummary"][];
                    };
                };
            };
            /** @description Invalid parameters (zod’s issues) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    transactionStatus: {
        parameters: {
            query?: {
                /** @description Chain name; when absent, the chain the caller last sent a transaction with this hash on */
                chain?: components["schemas"]["Chain"] & unknown;
            };
            header?: never;
            path: {
                /** @description The transaction’s hash (transactionHash of an execute answer) */
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionState"];
                };
            };
            /**
             * @description - Invalid parameters (zod’s issues)
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description No transaction with this hash signed by the caller’s wallet went through Laurel (one the caller only sent for another wallet is that wallet’s) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    releaseNonceReservations: {
        parameters: {
            query: {
                /** @description A chain this service serves, by name (e.g. `local`) */
                chain: components["schemas"]["Chain"];
            };
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        chain: string;
                        /** @description The wallet whose nonces they were: the caller */
                        sender: string;
                        /** @description The nonces freed: the next builds use them again */
                        released: number[];
                    };
                };
            };
            /** @description Invalid parameters (zod’s issues), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    webhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @description `whsec_` + base64 of 32 bytes: the HMAC key of the signature headers */
                        webhook_secret: string;
                        /** @description While the secret a rotation replaced still signs calls (POST /webhook/secret with `overlap_seconds`): when it stops. Absent (null) otherwise */
                        previous_secret_expires_at?: string | null;
                    };
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description Seconds the replaced secret stays valid: until then every call is signed with both (`webhook-signature` lists both; the body-HMAC header carries the new one). 0 replaces it at once; at most `WEBHOOK_SECRET_OVERLAP_MAX_SECONDS` (default 86400); omitted: `WEBHOOK_SECRET_OVERLAP_SECONDS` (default 0)
                     * @example 3600
                     */
                    overlap_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        /** @description `whsec_` + base64 of 32 bytes: the HMAC key of the signature headers */
                        webhook_secret: string;
                        /** @description While the secret a rotation replaced still signs calls (POST /webhook/secret with `overlap_seconds`): when it stops. Absent (null) otherwise */
                        previous_secret_expires_at?: string | null;
                    };
                };
            };
            /** @description Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description The receiver’s HTTPS url (an absolute URL with a host)
                     * @example https://example.com/hooks/laurel
                     */
                    url: string;
                    /** @description Event names to receive (only `transaction`); omitted or empty: every event */
                    events?: "transaction"[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhook: components["schemas"]["WebhookInfo"];
                    };
                };
            };
            /**
             * @description - Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key`
             *     - `invalid url`, `only HTTPS urls allowed`, `webhook events not found: …` (no `issues`)
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `webhook limit reached: …`: the account has `WEBHOOKS_PER_ACCOUNT` webhooks; delete one first
             *     - A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer
             */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `database operation failed`: the webhook could not be stored; retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    webhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhooks: components["schemas"]["WebhookInfo"][];
                    };
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    webhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhook: components["schemas"]["WebhookInfo"];
                    };
                };
            };
            /** @description `Malformed URL: invalid percent-encoding` in a path parameter */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `webhook not found`: no webhook of the caller’s account has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    replaceWebhook: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description The receiver’s HTTPS url (an absolute URL with a host)
                     * @example https://example.com/hooks/laurel
                     */
                    url?: string;
                    /** @description Event names to receive (only `transaction`); omitted or empty: every event */
                    events?: "transaction"[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhook: components["schemas"]["WebhookInfo"];
                    };
                };
            };
            /**
             * @description - Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key`
             *     - `invalid url`, `only HTTPS urls allowed`, `webhook events not found: …` (no `issues`)
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `webhook not found`: no webhook of the caller’s account has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhook: components["schemas"]["WebhookInfo"];
                    };
                };
            };
            /**
             * @description - Invalid parameters (zod’s issues), or a malformed `Idempotency-Key`
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `webhook not found`: no webhook of the caller’s account has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description The receiver’s HTTPS url (an absolute URL with a host)
                     * @example https://example.com/hooks/laurel
                     */
                    url?: string;
                    /** @description Event names to receive (only `transaction`); omitted or empty: every event */
                    events?: "transaction"[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhook: components["schemas"]["WebhookInfo"];
                    };
                };
            };
            /**
             * @description - Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key`
             *     - `invalid url`, `only HTTPS urls allowed`, `webhook events not found: …` (no `issues`)
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `webhook not found`: no webhook of the caller’s account has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        webhook: components["schemas"]["WebhookInfo"];
                    };
                };
            };
            /**
             * @description - Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key`
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `webhook not found`: no webhook of the caller’s account has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The receiver did not answer the challenge (the reason: status, content-type, body, certificate, timeout, address); `webhook` is left disabled
             *     - The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    webhookLogs: {
        parameters: {
            query?: {
                /** @description Page number, 1..10000 (default 1) */
                page?: string;
                /** @description Entries per page, 1..100 (default 20) */
                page_size?: string;
            };
            header?: never;
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        total: number;
                        page: number;
                        page_size: number;
                        data: components["schemas"]["WebhookLogEntry"][];
                    };
                };
            };
            /**
             * @description - Invalid parameters (zod’s issues)
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `webhook not found`: no webhook of the caller’s account has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    retryWebhookLog: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook’s id (from POST /webhook or GET /webhooks) */
                id: string;
                /** @description The log entry’s id (from the logs) */
                log_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "success";
                        log: components["schemas"]["WebhookLogEntry"];
                    };
                };
            };
            /**
             * @description - Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`), or a malformed `Idempotency-Key`
             *     - `Malformed URL: invalid percent-encoding` in a path parameter
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureA"] | components["schemas"]["FailureA"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `webhook not found`: no webhook of the caller’s account has this id
             *     - `webhook log not found`: the webhook has no log entry with this id
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `webhook is disabled: …`: a retry goes only to a verified url; a new or changed url (PATCH) or a deactivated webhook must answer POST /webhook/:id/test first
             *     - A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer
             */
            409: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Request body too large (limit 1 MB)` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The `Idempotency-Key` was already used with another request (another body) on this operation: use a new key for a new request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    profile: {
        parameters: {
            query: {
                /** @description A chain this service serves, by name (e.g. `local`) */
                chain: components["schemas"]["Chain"];
                /** @description The user (default: the calling account) */
                user_id?: string;
                /** @description Only this app's XP, badges and actions, plus its credit and point balances */
                app_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserProfileInfo"];
                };
            };
            /** @description Invalid parameters (zod’s issues) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureC"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    leaderboard: {
        parameters: {
            query: {
                /** @description A chain this service serves, by name (e.g. `local`) */
                chain: components["schemas"]["Chain"];
                /** @description Rank this app's rewards (default token: its XP token) */
                app_id?: string;
                /** @description Rank rewards of this token (default: the app XP token; without app_id, XP of every app) */
                token_address?: string;
                /** @description Alias of token_address */
                token_id?: string;
                /** @description Window start, seconds since the epoch, inclusive */
                start?: string;
                /** @description Window end, seconds since the epoch, inclusive */
                end?: string;
                /** @description Page number, 1..10000 (default 1) */
                page?: string;
                /** @description Entries per page, 1..100 (default 10) */
                page_size?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LeaderboardEntryInfo"][];
                };
            };
            /** @description Invalid parameters (zod’s issues) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationFailureZod"];
                };
            };
            /** @description `Missing API key: …`, `Invalid API key`, `API key revoked` or `API key expired`: send a live key in X-API-KEY */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /** @description `Internal server error`, with the `request_id` to quote (the failure is logged with it) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
            /**
             * @description - The chain’s node does not answer in time (the body names the chain); retry later
             *     - `Database unavailable`: the database cannot be reached, or it refuses writes (read-only) or ran out of a resource (a full disk); nothing was done, retry after `Retry-After` (1 s)
             *     - `Laurel is shutting down`: this process is stopping and did not take the request (nothing was done); send it again (another process serves it)
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FailureA"];
                };
            };
        };
    };
    transactionWebhookCall: {
        parameters: {
            query?: never;
            header: {
                "content-type": "application/json";
                "user-agent": string;
                "x-laurel-signature": string;
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    event: "transaction";
                    /** @description The same for every attempt of the event: a receiver ignores one it has processed */
                    idempotency_key: string;
                    payload: components["schemas"]["TransactionReceipt"];
                };
            };
        };
        responses: {
            /** @description Received: any 2xx ends the delivery (the body is not read) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) fails the attempt: it is retried */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    testWebhookCall: {
        parameters: {
            query?: never;
            header: {
                "content-type": "application/json";
                "user-agent": string;
                "x-laurel-signature": string;
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    event: "test";
                    /** @description The same for every attempt of the event: a receiver ignores one it has processed */
                    idempotency_key: string;
                    payload: null;
                };
            };
        };
        responses: {
            /** @description The challenge answered: the webhook becomes active. Any 2xx status; `content-type: application/json`; the body exactly `{"challenge": <the request's x-laurel-signature header>}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The request's x-laurel-signature header value */
                        challenge: string;
                    };
                };
            };
            /** @description Anything else fails the verification (422 from POST /v1/webhook/{id}/test) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
