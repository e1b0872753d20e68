import { loadConfig } from '../../src/config';

describe('webhook configuration', () => {
  it('has safe defaults', () => {
    expect(loadConfig({}).webhooks).toEqual({
      secretEncryptionKey: undefined,
      signatureHeader: 'x-laurel-signature',
      allowPrivateNetworks: false,
      retryBaseMs: 60_000,
      deliveryLeaseSeconds: 30,
    });
  });

  it('reads every variable, the header name in lower case', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(
      loadConfig({
        WEBHOOK_SECRET_ENCRYPTION_KEY: key,
        WEBHOOK_SIGNATURE_HEADER: 'X-Other-Signature',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_DELIVERY_LEASE_SECONDS: '5',
      }).webhooks,
    ).toEqual({
      secretEncryptionKey: key,
      signatureHeader: 'x-other-signature',
      allowPrivateNetworks: true,
      retryBaseMs: 50,
      deliveryLeaseSeconds: 5,
    });
  });

  it.each([
    ['WEBHOOK_SIGNATURE_HEADER', 'not a header'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_RETRY_BASE_MS', '0'],
  ])('names %s when it is invalid', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(variable);
  });
});
