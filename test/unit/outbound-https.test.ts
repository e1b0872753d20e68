/**
 * Laurel's calls to hosts users name (src/outbound-https.ts): the trust store of a development
 * setup, and addresses the SSRF rule refuses.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import dns from 'node:dns';
import tls from 'node:tls';
import { createCertificateAuthority, createServerCertificate } from '../../src/modules/webhooks/certificates';
import { OutboundCallError, OutboundHttpsClient } from '../../src/outbound-https';

// One TLS context made with the client serves every connection: a connection does not parse the
// whole store again (tens of milliseconds of CPU each, at the choice of whoever registers receivers).
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

describe('with private networks refused', () => {
  const call = { method: 'GET', timeoutMs: 5000, maxRedirects: 0, bodyLimit: 64 } as const;
  let client: OutboundHttpsClient;
  beforeAll(async () => {
    client = await OutboundHttpsClient.create({ allowPrivateNetworks: false, userAgent: 'test' });
  });
  afterAll(() => client.destroy());

  const refused = async (url: string) => {
    const error = await client.request(url, call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundCallError);
    return error as OutboundCallError;
  };

  it('refuses an IPv4-compatible IPv6 address (::127.0.0.1) named in the URL', async () => {
    const error = await refused('https://[::127.0.0.1]:9/hook');
    expect(error.kind).toBe('refused_address');
    expect(error.message).toContain('::7f00:1');
  });

  it('refuses one that DNS returns for a name, as it does a loopback address', async () => {
    const lookup = jest.spyOn(dns, 'lookup').mockImplementation(((
      _host: string,
      options: dns.LookupOptions,
      done: (error: null, address: string | dns.LookupAddress[], family?: number) => void,
    ) => {
      if (options.all) done(null, [{ address: '::7f00:1', family: 6 }]);
      else done(null, '::7f00:1', 6);
    }) as unknown as typeof dns.lookup);
    try {
      expect((await refused('https://receiver.example/hook')).kind).toBe('refused_address');
    } finally {
      lookup.mockRestore();
    }
    expect((await refused('https://[::1]:9/hook')).kind).toBe('refused_address');
  });
});
