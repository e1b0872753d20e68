/**
 * Webhook calls and metadata fetches of a development setup trust its CA beside Node's store: one
 * TLS context made with the client serves every connection, so a connection does not parse the
 * whole store again (each new connection would otherwise cost tens of milliseconds of CPU, at the
 * choice of whoever registers receivers).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createCertificateAuthority, createServerCertificate } from '../../src/modules/webhooks/certificates';
import { OutboundHttpsClient } from '../../src/outbound-https';

it('trusts an extra CA through one TLS context for every connection', async () => {
  const ca = await createCertificateAuthority('Laurel outbound trust test CA');
  // Each answer closes its connection: every call opens a new one.
  const server = https.createServer(await createServerCertificate(ca), (_request, response) => {
    response.writeHead(200, { connection: 'close' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const client = await OutboundHttpsClient.create({
    allowPrivateNetworks: true,
    userAgent: 'test',
    extraCaCertificates: [ca.cert],
  });
  const contexts = jest.spyOn(tls, 'createSecureContext');
  try {
    for (let i = 0; i < 3; i++) {
      const response = await client.request(url, {
        method: 'GET',
        timeoutMs: 5000,
        maxRedirects: 0,
        bodyLimit: 64,
      });
      expect(response.status).toBe(200);
    }
    expect(contexts).not.toHaveBeenCalled();
  } finally {
    contexts.mockRestore();
    client.destroy();
    server.close();
  }
});
