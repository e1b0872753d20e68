import type { Config } from '../config';
import { ensureDevelopmentCa } from '../modules/webhooks/certificates';
import { OutboundHttpsClient } from '../outbound-https';
import { LAUREL_VERSION } from '../version';
import type { Lifecycle } from './lifecycle';

/**
 * The HTTP client of badge metadata fetches: the SSRF rule of webhook calls with its own
 * allowances (BADGE_METADATA_ALLOW_PRIVATE_NETWORKS, BADGE_METADATA_ALLOWED_ADDRESSES) and, in a
 * development setup, the data folder's development CA trusted as for webhooks.
 */
export async function startBadgeMetadataClient(
  config: Config,
  lifecycle: Lifecycle,
): Promise<OutboundHttpsClient> {
  const developmentCa = config.webhooks.trustDevelopmentCa ? await ensureDevelopmentCa(config.dataDir) : null;
  const client = await OutboundHttpsClient.create({
    allowPrivateNetworks: config.badgeMetadata.allowPrivateNetworks,
    allowedAddresses: config.badgeMetadata.allowedAddresses,
    userAgent: `Laurel-Metadata/${LAUREL_VERSION}`,
    extraCaCertificates: developmentCa ? [developmentCa.pair.cert] : [],
    ...config.outbound,
  });
  lifecycle.onStop('badge metadata client', async () => client.destroy());
  return client;
}
