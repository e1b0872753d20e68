/** Badge metadata fetches: the IPFS gateway, deadlines, sizes, retries, refreshes and reachable addresses. */
import { z } from 'zod';
import { privateNetworksAllowance, privateNetworksAllowed, type Setup } from './outbound-calls';
import { commaSeparated, positiveInt, type Parsed } from './values';

export const badgeMetadataVariables = {
  BADGE_METADATA_IPFS_GATEWAY: z
    .string()
    .url()
    .refine((url) => url.startsWith('https://'), 'must be an https:// URL')
    .default('https://ipfs.io/ipfs/')
    .describe(
      'HTTPS gateway through which `ipfs://` metadata URIs are fetched: `ipfs://<cid>/<path>` is read from `<gateway><cid>/<path>` (a trailing `/` is added when missing)',
    ),
  BADGE_METADATA_TIMEOUT_MS: positiveInt(5_000).describe(
    "deadline of one badge metadata fetch (every redirect and the body); a slower host's fetch fails and is retried",
  ),
  BADGE_METADATA_MAX_BYTES: positiveInt(64 * 1024).describe(
    'largest badge metadata document accepted; the fetch of a larger one stops at this size and fails',
  ),
  BADGE_METADATA_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(3)
    .describe(
      'retries of a badge metadata fetch that failed for a reason that may pass (timeout, connection error, HTTP 408, 429 or 5xx), each 4 times later than the one before; other failures are not retried until the next refresh',
    ),
  BADGE_METADATA_RETRY_BASE_MS: positiveInt(30_000).describe(
    'delay before the first retry of a failed badge metadata fetch (±25 % jitter)',
  ),
  BADGE_METADATA_REFRESH_SECONDS: positiveInt(86_400).describe(
    'age after which the metadata of a badge with an `https://` URI, or a failed fetch of any, is fetched again (`ipfs://` content never changes); the badge contract emits no ERC-4906 events, and its base URI never changes',
  ),
  BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: privateNetworksAllowance('badge metadata fetches'),
  BADGE_METADATA_ALLOWED_ADDRESSES: commaSeparated()
    .optional()
    .describe(
      'addresses or CIDR ranges (comma-separated) that badge metadata fetches may reach even when private networks are not allowed, e.g. an IPFS gateway of your own network',
    ),
};

export interface BadgeMetadataConfig {
  badgeMetadata: {
    /** `ipfs://<path>` is fetched from `<ipfsGateway><path>`; ends with `/`. */
    ipfsGateway: string;
    timeoutMs: number;
    maxBytes: number;
    /** Retries of a fetch that failed for a reason that may pass. */
    retries: number;
    retryBaseMs: number;
    /** Age after which an `https://` document, or a failure, is fetched again. */
    refreshSeconds: number;
    allowPrivateNetworks: boolean;
    /** Reachable even when private networks are not allowed. */
    allowedAddresses: string[];
  };
}

export function badgeMetadataConfig(
  e: Parsed<typeof badgeMetadataVariables>,
  setup: Setup,
): BadgeMetadataConfig {
  return {
    badgeMetadata: {
      ipfsGateway: e.BADGE_METADATA_IPFS_GATEWAY.replace(/\/?$/, '/'),
      timeoutMs: e.BADGE_METADATA_TIMEOUT_MS,
      maxBytes: e.BADGE_METADATA_MAX_BYTES,
      retries: e.BADGE_METADATA_RETRIES,
      retryBaseMs: e.BADGE_METADATA_RETRY_BASE_MS,
      refreshSeconds: e.BADGE_METADATA_REFRESH_SECONDS,
      allowPrivateNetworks: privateNetworksAllowed(e.BADGE_METADATA_ALLOW_PRIVATE_NETWORKS, setup),
      allowedAddresses: e.BADGE_METADATA_ALLOWED_ADDRESSES ?? [],
    },
  };
}
