import { ConfigError, loadConfig, wantsLocalChain } from '../../src/config';
import { connectionConfig } from '../../src/db/connection';

const chain = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrl: 'https://rpc.example/base-sepolia',
  explorerUrl: 'https://sepolia.basescan.org',
  factoryAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
};

describe('private networks for webhook calls and badge metadata fetches', () => {
  const allowances = (env: Record<string, string>) => {
    const config = loadConfig(env);
    return [config.webhooks.allowPrivateNetworks, config.badgeMetadata.allowPrivateNetworks];
  };

  it.each(['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])(
    'are allowed by default in a development setup listening on loopback (HOST=%s)',
    (host) => {
      expect(allowances({ HOST: host })).toEqual([true, true]);
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.2', 'laurel.internal', '128.0.0.1'])(
    'are refused by default in a development setup listening elsewhere (HOST=%s)',
    (host) => {
      expect(allowances({ HOST: host })).toEqual([false, false]);
      // The development CA is still trusted: it only lets a certificate of this machine verify.
      expect(loadConfig({ HOST: host }).webhooks.trustDevelopmentCa).toBe(true);
    },
  );

  it('are allowed anywhere when set explicitly, and refused when so set', () => {
    const explicit = {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    expect(allowances({ ...explicit, HOST: '0.0.0.0' })).toEqual([true, true]);
    expect(allowances({ ...explicit, HOST: '0.0.0.0', CHAINS: JSON.stringify([chain]) })).toEqual([
      true,
      true,
    ]);
    expect(
      allowances({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: 'false' }),
    ).toEqual([false, false]);
  });

  it('are refused by default wherever a chain is configured, on loopback too', () => {
    expect(allowances({ HOST: '127.0.0.1', CHAINS: JSON.stringify([chain]) })).toEqual([false, false]);
  });

  it('are refused, and the development CA not trusted, when an empty chain list is given', () => {
    for (const localChain of ['on', 'off']) {
      const config = loadConfig({ HOST: '127.0.0.1', CHAINS: '[]', LOCAL_CHAIN: localChain });
      expect(config.chains).toEqual([]);
      expect([config.webhooks.allowPrivateNetworks, config.badgeMetadata.allowPrivateNetworks]).toEqual([
        false,
        false,
      ]);
      expect(config.webhooks.trustDevelopmentCa).toBe(false);
    }
  });
});

describe('loadConfig', () => {
  it('has documented defaults and starts the local chain when none is configured', () => {
    const config = loadConfig({}, '/srv/laurel');
    expect(config.port).toBe(4000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toBe('/srv/laurel/.data');
    expect(config.chains).toEqual([]);
    expect(wantsLocalChain(config)).toBe(true);
    expect(config.transactions.executeWaitTimeoutSeconds).toBe(30);
    expect(config.workerConcurrency).toBe(32);
    expect(config.outbound).toEqual({ idleSocketMs: 15_000, maxSockets: 256 });
    expect(config.webhooks).toMatchObject({ perAccount: 20, retentionDays: 30 });
  });

  it('reads chains from CHAINS and then skips the local chain', () => {
    const config = loadConfig({ CHAINS: JSON.stringify([chain]) });
    const { rpcUrl, ...rest } = chain;
    expect(config.chains).toEqual([
      { ...rest, rpcUrls: [{ url: rpcUrl }], confirmations: 1, maxProviderLagBlocks: 5 },
    ]);
    expect(wantsLocalChain(config)).toBe(false);
    expect(wantsLocalChain({ ...config, localChain: 'on' })).toBe(true);
  });

  it('takes several providers in rpcUrls, each a URL or a URL with its own request rate', () => {
    const { rpcUrl: _, ...rest } = chain;
    const config = loadConfig({
      CHAINS: JSON.stringify([
        {
          ...rest,
          rpcUrls: ['https://a.example/key1', { url: 'https://b.example/key2', maxRequestsPerSecond: 5 }],
          maxRequestsPerSecond: 20,
          maxProviderLagBlocks: 10,
          maxFeePerGasCap: '50000000000',
        },
      ]),
    });
    expect(config.chains[0]).toMatchObject({
      rpcUrls: [
        { url: 'https://a.example/key1', maxRequestsPerSecond: 20 },
        { url: 'https://b.example/key2', maxRequestsPerSecond: 5 },
      ],
      maxProviderLagBlocks: 10,
      maxFeePerGasCap: '50000000000',
    });
  });

  const { rpcUrl: __, ...withoutUrl } = chain;
  const entry = (fields: Record<string, unknown>) => ({
    CHAINS: JSON.stringify([{ ...withoutUrl, ...fields }]),
  });
  it.each([
    ['no URL', entry({}), /CHAINS: \[0\]\.rpcUrls: give rpcUrls \(one or more RPC URLs\) or rpcUrl/],
    ['an empty rpcUrls', entry({ rpcUrls: [] }), /\[0\]\.rpcUrls: give at least one RPC URL/],
    [
      'rpcUrl and rpcUrls',
      entry({ rpcUrl: 'https://a.example', rpcUrls: ['https://b.example'] }),
      /\[0\]\.rpcUrl: give either rpcUrl or rpcUrls/,
    ],
    ['a bad URL', entry({ rpcUrls: ['https://a.example', 'nope'] }), /\[0\]\.rpcUrls\[1\]\.url: Invalid url/],
    [
      'a URL twice',
      entry({ rpcUrls: ['https://a.example', 'https://a.example'] }),
      /\[0\]\.rpcUrls\[1\]: the same URL is given twice/,
    ],
    [
      'a zero rate',
      entry({ rpcUrls: [{ url: 'https://a.example', maxRequestsPerSecond: 0 }] }),
      /\[0\]\.rpcUrls\[0\]\.maxRequestsPerSecond/,
    ],
    [
      'a fee cap in gwei',
      entry({ rpcUrls: ['https://a.example'], maxFeePerGasCap: '1.5 gwei' }),
      /\[0\]\.maxFeePerGasCap: must be a decimal integer string \(wei\)/,
    ],
  ])('rejects a chain entry with %s, naming the field', (_label, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ CHAINS: '{not json' }, /CHAINS: not valid JSON/],
    [{ CHAINS: JSON.stringify([{ ...chain, rpcUrl: 'nope' }]) }, /CHAINS: \[0\]\.rpcUrl/],
    [{ CHAINS: JSON.stringify([chain, chain]) }, /duplicate chain name/],
    [{ CHAINS: '{}' }, 'CHAINS: (value): Expected array, received object'],
    [
      { CHAINS: JSON.stringify([chain, { ...chain, name: 'b', maxFeePerGasCapp: '1' }]) },
      "CHAINS: [1]: Unrecognized key(s) in object: 'maxFeePerGasCapp'",
    ],
    [{ CHAINS: '[]' }, /^CHAINS: an empty list: name at least one chain, or set LOCAL_CHAIN=off/],
    [{ DATABASE_URL: 'postgres://u:pw@[bad/db' }, /^Invalid configuration: DATABASE_URL: not a valid URL/],
    [{ CHAINS_FILE: '/nonexistent/chains.json' }, /CHAINS_FILE: file not found/],
    [{ EXECUTE_WAIT_TIMEOUT_SECONDS: '0' }, /EXECUTE_WAIT_TIMEOUT_SECONDS/],
    [{ DATABASE_DIRECT_URL: 'postgres://db/laurel' }, /DATABASE_DIRECT_URL: needs DATABASE_URL/],
    [{ DATABASE_READ_URL: 'postgres://replica/laurel' }, /DATABASE_READ_URL: needs DATABASE_URL/],
    [{ DATABASE_URL: 'postgres://db/l', DATABASE_READ_URL: 'postgres://r/l,http://x' }, /DATABASE_READ_URL/],
    [{ DATABASE_POOLER: 'statement' }, /DATABASE_POOLER/],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('database connections', () => {
  const pooler = 'postgres://laurel:pw@pgbouncer:6432/laurel';
  const direct = 'postgres://laurel:pw@primary:5432/laurel';

  it('takes DATABASE_URL as a session connection unless DATABASE_DIRECT_URL names another (a pooler then)', () => {
    expect(loadConfig({ DATABASE_URL: direct })).toMatchObject({
      databaseDirectUrl: undefined,
      databasePooler: 'session',
      databaseReadUrls: [],
    });
    expect(loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct })).toMatchObject({
      databaseDirectUrl: direct,
      databasePooler: 'transaction',
    });
    expect(loadConfig({ DATABASE_URL: direct, DATABASE_DIRECT_URL: direct }).databasePooler).toBe('session');
    // PgBouncer >= 1.21 with max_prepared_statements keeps prepared statements: said explicitly.
    expect(
      loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct, DATABASE_POOLER: 'session' })
        .databasePooler,
    ).toBe('session');
  });

  it('reads one or more replicas from DATABASE_READ_URL', () => {
    expect(
      loadConfig({ DATABASE_URL: direct, DATABASE_READ_URL: ' postgres://r1/laurel, postgres://r2/laurel,' })
        .databaseReadUrls,
    ).toEqual(['postgres://r1/laurel', 'postgres://r2/laurel']);
  });

  it("reads sslmode as libpq does (node-postgres would take 'require' as 'verify-full')", () => {
    expect(connectionConfig(`${direct}?sslmode=require`)).toEqual({
      connectionString: `${direct}?sslmode=require&uselibpqcompat=true`,
    });
    expect(connectionConfig(direct)).toEqual({ connectionString: direct });
    expect(connectionConfig(`${direct}?sslmode=verify-full&uselibpqcompat=false`)).toEqual({
      connectionString: `${direct}?sslmode=verify-full&uselibpqcompat=false`,
    });
  });
});
