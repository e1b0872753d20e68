/** Webhooks: their secrets and signatures, their number, retries, leases and retention. */
import { z } from 'zod';
import { privateNetworksAllowance, privateNetworksAllowed, type Setup } from './outbound-calls';
import { ConfigError, positiveInt, type Parsed } from './values';

/** The longest overlap of webhook secrets (a day): the schema's bound, which the setting may lower. */
export const WEBHOOK_SECRET_OVERLAP_CEILING_SECONDS = 86_400;

/** The body-HMAC header's name unless WEBHOOK_SIGNATURE_HEADER names another (openapi.json names this one). */
export const DEFAULT_WEBHOOK_SIGNATURE_HEADER = 'x-laurel-signature';

export const webhooksVariables = {
  WEBHOOK_SECRET_ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)')
    .optional()
    .describe(
      'key encrypting the stored webhook secrets; unset: generated into `DATA_DIR` on the first start. Several processes need the same one',
    ),
  WEBHOOK_SIGNATURE_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
    .default(DEFAULT_WEBHOOK_SIGNATURE_HEADER)
    .transform((name) => name.toLowerCase())
    .describe(
      "name of the body-HMAC header of webhook calls (another service's name, e.g. `x-openformat-signature`, lets its receivers work unchanged)",
    ),
  WEBHOOK_SECRET_OVERLAP_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      'seconds `POST /webhook/secret` keeps the replaced secret valid when the request names no `overlap_seconds` (calls are signed with both meanwhile); `0` replaces it at once, as the interface says',
    ),
  WEBHOOK_SECRET_OVERLAP_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(WEBHOOK_SECRET_OVERLAP_CEILING_SECONDS)
    .default(WEBHOOK_SECRET_OVERLAP_CEILING_SECONDS)
    .describe(
      'the longest `overlap_seconds` a rotation of the webhook secret may ask for (default and most: one day, as openapi.json says); past it the request answers 400',
    ),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: privateNetworksAllowance('webhook calls'),
  WEBHOOKS_PER_ACCOUNT: positiveInt(20).describe(
    'webhooks an account may have; `POST /webhook` past it answers 409 `webhook limit reached` (each webhook gets a call per event)',
  ),
  WEBHOOK_LOG_RETENTION_DAYS: positiveInt(30).describe(
    "days webhook events are kept with their deliveries and logged attempts (receivers' answers included); `maintenance__prune` deletes older ones once none of their deliveries is pending",
  ),
  WEBHOOK_RETRY_BASE_MS: positiveInt(60_000).describe(
    'first retry delay of a failed webhook call; each next one is 4 times longer (±25 % jitter)',
  ),
  WEBHOOK_DELIVERY_LEASE_SECONDS: positiveInt(30).describe(
    'a first attempt left to the process that recorded the event and not recorded within it is taken to have lost its process, and is made by a job',
  ),
  WEBHOOK_FIRST_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(0)
    .default(32)
    .describe(
      "first attempts of webhook deliveries a process makes itself at once, right after recording their event (the API's `execute-and-wait`, the worker's receipt jobs); past it, and with `0`, each delivery's first attempt is a job",
    ),
};

export interface WebhooksConfig {
  webhooks: {
    /** 32-byte AES key (base64); absent: read from, or generated into, the data folder at start. */
    secretEncryptionKey?: string;
    /** Lower-case name of the header carrying the base64 HMAC-SHA256 of the body. */
    signatureHeader: string;
    /** Allow calls to loopback, private, link-local, ... addresses (tests, local development). */
    allowPrivateNetworks: boolean;
    /** Webhooks one account may have. */
    perAccount: number;
    /** Days events, deliveries and logged attempts are kept (pending deliveries until they end). */
    retentionDays: number;
    /**
     * Trust the development CA of the data folder for webhook calls (a development setup only), so
     * that a receiver on this machine (`npm run demo`) can be verified.
     */
    trustDevelopmentCa: boolean;
    /** First retry delay; each further retry waits four times longer (with jitter). */
    retryBaseMs: number;
    /** A first attempt left to the process that recorded the event and not recorded within it becomes a job. */
    deliveryLeaseSeconds: number;
    /** First attempts a process makes itself at once after recording their event (0: none, jobs only). */
    firstAttempts: number;
    /** Seconds a rotated secret stays valid when the rotation asks for no window (0: replaced at once). */
    secretOverlapSeconds: number;
    /** The longest window a rotation may ask for. */
    secretOverlapMaxSeconds: number;
  };
}

export function webhooksConfig(e: Parsed<typeof webhooksVariables>, setup: Setup): WebhooksConfig {
  if (e.WEBHOOK_SECRET_OVERLAP_SECONDS > e.WEBHOOK_SECRET_OVERLAP_MAX_SECONDS) {
    throw new ConfigError(
      'Invalid configuration: WEBHOOK_SECRET_OVERLAP_SECONDS: must not exceed WEBHOOK_SECRET_OVERLAP_MAX_SECONDS',
    );
  }
  return {
    webhooks: {
      secretEncryptionKey: e.WEBHOOK_SECRET_ENCRYPTION_KEY,
      signatureHeader: e.WEBHOOK_SIGNATURE_HEADER,
      allowPrivateNetworks: privateNetworksAllowed(e.WEBHOOK_ALLOW_PRIVATE_NETWORKS, setup),
      perAccount: e.WEBHOOKS_PER_ACCOUNT,
      retentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
      trustDevelopmentCa: setup.developmentSetup,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      deliveryLeaseSeconds: e.WEBHOOK_DELIVERY_LEASE_SECONDS,
      firstAttempts: e.WEBHOOK_FIRST_ATTEMPTS,
      secretOverlapSeconds: e.WEBHOOK_SECRET_OVERLAP_SECONDS,
      secretOverlapMaxSeconds: e.WEBHOOK_SECRET_OVERLAP_MAX_SECONDS,
    },
  };
}
