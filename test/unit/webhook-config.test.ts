import { loadConfig } from '../../src/config';

describe('webhook configuration', () => {
  const chains = JSON.stringify([
    {
      name: 'mainnet',
      chainId: 1,
      rpcUrl: 'https://rpc.example',
      explorerUrl: 'https://explorer.example',
      factoryAddress: '0x' + '1'.repeat(40),
    },
  ]);

  it('has safe defaults wherever a chain is configured', () => {
    const safe = {
      secretEncryptionKey: undefined,
      signatureHeader: 'x-laurel-signature',
      allowPrivateNetworks: false,
      perAccount: 20,
      retentionDays: 30,
      trustDevelopmentCa: false,
      retryBaseMs: 60_000,
      deliveryLeaseSeconds: 30,
      firstAttempts: 32,
      secretOverlapSeconds: 0,
      secretOverlapMaxSeconds: 86_400,
    };
    expect(loadConfig({ CHAINS: chains }).webhooks).toEqual(safe);
    expect(loadConfig({ CHAINS: chains, LOCAL_CHAIN: 'on' }).webhooks).toEqual(safe);
    expect(loadConfig({ LOCAL_CHAIN: 'off' }).webhooks).toEqual(safe);
  });

  it('on a development setup (only the local chain) allows private addresses and trusts the development CA', () => {
    expect(loadConfig({}).webhooks).toMatchObject({ allowPrivateNetworks: true, trustDevelopmentCa: true });
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }).webhooks).toMatchObject({
      allowPrivateNetworks: false,
      trustDevelopmentCa: true,
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
        WEBHOOK_FIRST_ATTEMPTS: '0',
        WEBHOOKS_PER_ACCOUNT: '3',
        WEBHOOK_LOG_RETENTION_DAYS: '7',
        WEBHOOK_SECRET_OVERLAP_SECONDS: '600',
        WEBHOOK_SECRET_OVERLAP_MAX_SECONDS: '3600',
        CHAINS: chains,
      }).webhooks,
    ).toEqual({
      secretEncryptionKey: key,
      signatureHeader: 'x-other-signature',
      allowPrivateNetworks: true,
      perAccount: 3,
      retentionDays: 7,
      trustDevelopmentCa: false,
      retryBaseMs: 50,
      deliveryLeaseSeconds: 5,
      firstAttempts: 0,
      secretOverlapSeconds: 600,
      secretOverlapMaxSeconds: 3600,
    });
  });

  it.each([
    ['WEBHOOK_SIGNATURE_HEADER', 'not a header'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_RETRY_BASE_MS', '0'],
    ['WEBHOOKS_PER_ACCOUNT', '0'],
    ['WEBHOOK_LOG_RETENTION_DAYS', '-1'],
    ['OUTBOUND_MAX_SOCKETS', '0'],
    ['OUTBOUND_IDLE_SOCKET_MS', 'soon'],
    ['WEBHOOK_SECRET_OVERLAP_SECONDS', '-1'],
    ['WEBHOOK_SECRET_OVERLAP_MAX_SECONDS', '1.5'],
  ])('names %s when it is invalid', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(variable);
  });

  it('refuses a default rotation window longer than the maximum', () => {
    expect(() =>
      loadConfig({ WEBHOOK_SECRET_OVERLAP_SECONDS: '7200', WEBHOOK_SECRET_OVERLAP_MAX_SECONDS: '3600' }),
    ).toThrow('WEBHOOK_SECRET_OVERLAP_SECONDS: must not exceed WEBHOOK_SECRET_OVERLAP_MAX_SECONDS');
  });
});
