import path from 'node:path';
import type { Config } from '../config';
import { developmentCaFiles, ensureDevelopmentCa } from '../modules/webhooks/certificates';
import { WebhookHttpClient } from '../modules/webhooks/webhook-http-client';
import { resolveWebhookEncryptionKey } from '../modules/webhooks/webhook-secrets';
import { LAUREL_VERSION } from '../version';
import type { Lifecycle } from './lifecycle';

/**
 * What the webhooks module needs from outside the database: the key that encrypts the account
 * secrets at rest (generated into the data folder on a first start without one) and the HTTP
 * client of webhook calls (which, in a development setup, trusts the data folder's development CA).
 */
export async function startWebhookInfrastructure(
  config: Config,
  lifecycle: Lifecycle,
  progress: (line: string) => void,
): Promise<{ client: WebhookHttpClient; secretEncryptionKey: Buffer }> {
  const encryption = await resolveWebhookEncryptionKey(config);
  if (encryption.source === 'generated') {
    progress(`webhooks    generated the secret encryption key in ${config.dataDir}`);
  }
  const developmentCa = config.webhooks.trustDevelopmentCa ? await ensureDevelopmentCa(config.dataDir) : null;
  if (developmentCa) {
    const folder = path.dirname(developmentCaFiles(config.dataDir).cert);
    const privateAddresses = config.webhooks.allowPrivateNetworks ? 'private addresses allowed, ' : '';
    progress(
      `webhooks    development setup: ${privateAddresses}development CA in ${folder} trusted` +
        (developmentCa.created ? ' (created)' : ''),
    );
  }
  const client = await WebhookHttpClient.create({
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    userAgent: `Laurel-Webhooks/${LAUREL_VERSION}`,
    extraCaCertificates: developmentCa ? [developmentCa.pair.cert] : [],
    ...config.outbound,
  });
  lifecycle.onStop('webhook client', async () => client.destroy());
  return { client, secretEncryptionKey: encryption.key };
}
