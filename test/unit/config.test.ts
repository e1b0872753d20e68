import { ConfigError, loadConfig, wantsLocalChain } from '../../src/config';

const chain = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrl: 'https://rpc.example/base-sepolia',
  explorerUrl: 'https://sepolia.basescan.org',
  factoryAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
};

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
  });

  it('reads chains from CHAINS and then skips the local chain', () => {
    const config = loadConfig({ CHAINS: JSON.stringify([chain]) });
    expect(config.chains).toEqual([{ ...chain, confirmations: 1 }]);
    expect(wantsLocalChain(config)).toBe(false);
    expect(wantsLocalChain({ ...config, localChain: 'on' })).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ CHAINS: '{not json' }, /CHAINS: not valid JSON/],
    [{ CHAINS: JSON.stringify([{ ...chain, rpcUrl: 'nope' }]) }, /CHAINS: \[0\]\.rpcUrl/],
    [{ CHAINS: JSON.stringify([chain, chain]) }, /duplicate chain name/],
    [{ CHAINS_FILE: '/nonexistent/chains.json' }, /CHAINS_FILE: file not found/],
    [{ EXECUTE_WAIT_TIMEOUT_SECONDS: '0' }, /EXECUTE_WAIT_TIMEOUT_SECONDS/],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
