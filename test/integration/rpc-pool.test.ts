import { Contract, Wallet, type ContractTransactionResponse } from 'ethers';
import { appFactoryInterface, appInterface, encodeActionId } from '../../src/chain/contracts';
import { ChainRegistry, type Chain } from '../../src/chain/registry';
import type { RawLog } from '../../src/chain/rpc-pool';
import { ChainUnavailableError } from '../../src/errors';
import { createLogger } from '../../src/logger';
import { getLogs } from '../../src/indexer/logs-client';
import { topics } from '../../src/indexer/log-decoder';
import { chainConfigOf, mined, startTestChain, type TestChain } from '../helpers/chain';
import { eventArg } from '../helpers/flow';
import { PERFECT, startHostileRpc, type HostileRpc } from '../helpers/hostile-rpc';
import { waitUntil } from '../helpers/wait';

/**
 * The providers of one chain as Laurel uses them (src/chain/rpc-pool.ts), through two hostile
 * JSON-RPC proxies in front of one anvil: failover, Retry-After, lag, eth_getLogs limits, rate
 * limits and broadcasting, each provider named in logs and errors, never by URL.
 */
let chain: TestChain;
let a: HostileRpc;
let b: HostileRpc;
let app: Contract;
const logLines: string[] = [];
let chains = 0;
const registries: ChainRegistry[] = [];

/** A chain of Laurel's over both proxies (a fresh pool each time: no health carried over). */
function pooled(fields: Record<string, unknown> = {}, timeoutMs = 5_000): Chain {
  chains += 1;
  const registry = new ChainRegistry([], timeoutMs, {
    log: createLogger('info', { destination: { write: (line: string) => logLines.push(line) } }),
  });
  registries.push(registry);
  return registry.add({
    ...chainConfigOf(chain, { name: `pool${chains}` }),
    rpcUrl: undefined,
    rpcUrls: [a.url, b.url],
    ...fields,
  });
}

beforeAll(async () => {
  chain = await startTestChain();
  [a, b] = await Promise.all([startHostileRpc(chain.rpcUrl), startHostileRpc(chain.rpcUrl)]);
  const owner = chain.wallets[1];
  const factory = new Contract(chain.factory, appFactoryInterface, owner);
  const receipt = await mined(factory.createApp('Pool') as Promise<ContractTransactionResponse>);
  app = new Contract(eventArg(receipt.logs, appFactoryInterface, 'AppCreated', 'app'), appInterface, owner);
  // 12 blocks of 3 rewards each: 36 Rewarded logs.
  for (let block = 0; block < 12; block += 1) {
    await chain.provider.send('evm_setAutomine', [false]);
    const sent: ContractTransactionResponse[] = [];
    for (let i = 0; i < 3; i += 1) {
      sent.push(
        await (app.rewardXP(
          Wallet.createRandom().address,
          1n,
          encodeActionId(`b${block}-${i}`),
        ) as Promise<ContractTransactionResponse>),
      );
    }
    await chain.provider.send('evm_mine', []);
    await chain.provider.send('evm_setAutomine', [true]);
    await Promise.all(sent.map((tx) => tx.wait()));
  }
}, 120_000);

afterEach(async () => {
  await Promise.all([a.set(PERFECT), b.set(PERFECT)]);
});

afterAll(async () => {
  for (const registry of registries) registry.destroy();
  await Promise.all([a?.close(), b?.close()]);
  await chain?.stop();
});

async function rewardedLogsDirect(): Promise<RawLog[]> {
  const head = await chain.provider.getBlockNumber();
  return (await chain.provider.send('eth_getLogs', [
    {
      fromBlock: '0x0',
      toBlock: `0x${head.toString(16)}`,
      address: [await app.getAddress()],
      topics: [[topics.rewarded]],
    },
  ])) as RawLog[];
}

const filterOf = async (toBlock: number) => ({
  fromBlock: 0,
  toBlock,
  address: [await app.getAddress()],
  topics: [[topics.rewarded]],
});

describe('eth_getLogs ranges', () => {
  it('splits a range a provider refuses as too wide, remembering its limit, and misses no log', async () => {
    const expected = await rewardedLogsDirect();
    expect(expected.length).toBe(36);
    await Promise.all([a.set({ getLogsMaxBlocks: 5 }), b.set({ getLogsMaxBlocks: 3 })]);
    const pool = pooled();
    const head = await chain.provider.getBlockNumber();
    const before = a.calls('eth_getLogs') + b.calls('eth_getLogs');
    expect(await getLogs(pool, await filterOf(head))).toEqual(expected);
    expect(pool.provider.pool.endpoints.map((endpoint) => endpoint.logSpanLimit)).toEqual([5, 3]);
    // Once learned, ranges are cut to each provider's limit before asking.
    const calls = a.calls('eth_getLogs') + b.calls('eth_getLogs') - before;
    const again = a.calls('eth_getLogs') + b.calls('eth_getLogs');
    expect(await getLogs(pool, await filterOf(head))).toEqual(expected);
    const second = a.calls('eth_getLogs') + b.calls('eth_getLogs') - again;
    expect(second).toBeLessThan(calls);
    expect(second).toBeGreaterThanOrEqual(Math.ceil((head + 1) / 5));
    expect(logLines.join('')).toContain('"provider":"pool1#1","maxBlocks":5');
  });

  it.each(['infura', 'alchemy'] as const)(
    'narrows a range whose answer has too many results (%s wording) for the rest of the call',
    async (style) => {
      const expected = await rewardedLogsDirect();
      await Promise.all([
        a.set({ getLogsMaxResults: 7, getLogsResultsStyle: style }),
        b.set({ getLogsMaxResults: 7, getLogsResultsStyle: style }),
      ]);
      const pool = pooled();
      const head = await chain.provider.getBlockNumber();
      expect(await getLogs(pool, await filterOf(head))).toEqual(expected);
      // A result-size refusal is not a range limit of the provider.
      expect(pool.provider.pool.endpoints.map((endpoint) => endpoint.logSpanLimit)).toEqual([
        Infinity,
        Infinity,
      ]);
    },
  );

  it('never asks a lagging provider for blocks it has not reached', async () => {
    const expected = await rewardedLogsDirect();
    await b.set({ lagBlocks: 8 });
    const pool = pooled({ maxProviderLagBlocks: 2 });
    const head = await chain.provider.getBlockNumber();
    await waitUntil('the lag seen', async () => {
      await pool.provider.getBlockNumber();
      return pool.provider.pool.endpoints[1].state === 'lagging';
    });
    // b clamps ranges to its head (as a lagging node answers): it is never asked for them.
    for (let i = 0; i < 6; i += 1) expect(await getLogs(pool, await filterOf(head))).toEqual(expected);
    expect(pool.provider.pool.endpoints[1].state).toBe('lagging');
    // Blocks it has are still asked of it.
    const older = expected.filter((log) => Number(log.blockNumber) <= head - 10);
    const before = b.calls('eth_getLogs');
    for (let i = 0; i < 6; i += 1) expect(await getLogs(pool, await filterOf(head - 10))).toEqual(older);
    expect(b.calls('eth_getLogs')).toBeGreaterThan(before);
  });
});

describe('failover', () => {
  it('answers through the other provider when one refuses connections, naming it without its URL', async () => {
    await a.set({ dark: 'refuse' });
    const pool = pooled();
    const expected = await chain.provider.getBlockNumber();
    for (let i = 0; i < 5; i += 1) expect(await pool.provider.getBlockNumber()).toBe(expected);
    const [first, second] = pool.provider.pool.endpoints;
    expect([first.state, second.state]).toEqual(['down', 'ok']);
    const logged = logLines.join('');
    expect(logged).toContain(`"provider":"${first.name}"`);
    expect(logged).toContain('refused the connection');
    expect(logged).not.toContain(a.url);
    expect(logged).not.toContain(a.url.replace('http://', ''));
  });

  it('answers within a fraction of the deadline when one provider takes calls and never answers', async () => {
    await a.set({ dark: 'hang' });
    const pool = pooled({}, 10_000);
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) await pool.provider.getBlockNumber();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('hedges to a provider once its budget allows, when the one asked never answers', async () => {
    const pool = pooled({ rpcUrls: [{ url: a.url }, { url: b.url, maxRequestsPerSecond: 1 }] });
    // The first call goes to a, the second to b, which spends b's budget for the next second.
    await pool.provider.send('eth_chainId', []);
    await pool.provider.send('eth_chainId', []);
    await a.set({ dark: 'hang' });
    const started = Date.now();
    // a takes it and never answers; at the hedge b must still wait for its budget, and is asked
    // then, not never (which left the call to the 5 s deadline: a 503).
    expect(await pool.provider.send('eth_chainId', [])).toBe(`0x${chain.chainId.toString(16)}`);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('fails over on 5xx, resets and -32005 shares, batches included', async () => {
    await a.set({ serverErrorShare: 0.3, resetShare: 0.2, limitErrorShare: 0.3 });
    await b.set({ serverErrorShare: 0.2, limitErrorShare: 0.2 });
    // Both throttle often: calls wait out a second's backoff now and then.
    const pool = pooled({}, 15_000);
    const head = await chain.provider.getBlockNumber();
    for (let round = 0; round < 5; round += 1) {
      // Sent in one tick: one JSON-RPC batch.
      const blocks = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          pool.provider.send('eth_getBlockByNumber', [`0x${(head - i).toString(16)}`, false]),
        ),
      );
      expect(blocks.map((block: { number: string }) => Number(block.number))).toEqual(
        Array.from({ length: 8 }, (_, i) => head - i),
      );
    }
  });

  it('honours Retry-After: a throttling provider gets nothing until then', async () => {
    await a.set({ throttleShare: 1, retryAfterSeconds: 10 });
    const pool = pooled();
    await pool.provider.getBlockNumber();
    const throttled = a.calls();
    for (let i = 0; i < 20; i += 1) await pool.provider.getBlockNumber();
    expect(a.calls()).toBe(throttled);
    expect(pool.provider.pool.endpoints[0].state).toBe('throttled');
  });

  it('is a 503 naming each provider when none answers', async () => {
    await Promise.all([a.set({ dark: 'refuse' }), b.set({ throttleShare: 1, retryAfterSeconds: 30 })]);
    const pool = pooled();
    const failure = await pool.provider.getBlockNumber().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ChainUnavailableError);
    expect((failure as Error).message).toMatch(
      new RegExp(
        `^Chain "${pool.name}" is unavailable: no provider answered \\(${pool.name}#1 refused the connection; ${pool.name}#2 answered HTTP 429\\)`,
      ),
    );
    expect((failure as ChainUnavailableError).mayHaveArrived).toBe(false);
  });
});

describe('lag', () => {
  it('reads the head and fresh state from the provider that is not behind', async () => {
    await b.set({ lagBlocks: 5 });
    const pool = pooled({ maxProviderLagBlocks: 2 });
    const head = await chain.provider.getBlockNumber();
    await waitUntil('the lag seen', async () => {
      await pool.provider.getBlockNumber();
      return pool.provider.pool.endpoints[1].state === 'lagging';
    });
    for (let i = 0; i < 10; i += 1) expect(await pool.provider.getBlockNumber()).toBe(head);
    const checked = await pool.provider.pool.check();
    expect(checked).toEqual([
      { name: `${pool.name}#1`, ok: true, state: 'ok' },
      { name: `${pool.name}#2`, ok: false, state: 'lagging' },
    ]);
  });
});

describe('rate limits', () => {
  it('sends a provider no more than its maxRequestsPerSecond', async () => {
    const pool = pooled({ rpcUrls: [{ url: a.url, maxRequestsPerSecond: 4 }] });
    const started = Date.now();
    await Promise.all(Array.from({ length: 12 }, () => pool.provider.send('eth_chainId', [])));
    // 4 at once (a full bucket), then 4 a second: the last of 12 leaves after 2 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });
});

describe('broadcasting', () => {
  it('sends a signed transaction to every provider; "already known" is a success', async () => {
    const pool = pooled();
    const wallet = chain.wallets[3];
    const signed = await wallet.signTransaction(
      await wallet.populateTransaction({ to: wallet.address, value: 1n }),
    );
    const before = [a.calls('eth_sendRawTransaction'), b.calls('eth_sendRawTransaction')];
    await chain.provider.send('evm_setAutomine', [false]);
    try {
      const hash = await pool.provider.send('eth_sendRawTransaction', [signed]);
      expect(await pool.provider.send('eth_sendRawTransaction', [signed])).toBe(hash);
    } finally {
      await chain.provider.send('evm_setAutomine', [true]);
      await chain.provider.send('evm_mine', []);
    }
    await waitUntil(
      'both sends',
      () =>
        a.calls('eth_sendRawTransaction') - before[0] === 2 &&
        b.calls('eth_sendRawTransaction') - before[1] === 2,
    );
  });

  it('sends it again to a provider that failed, when no provider took it yet', async () => {
    await Promise.all([a.set({ serverErrorShare: 1 }), b.set({ dark: 'refuse' })]);
    const pool = pooled();
    const wallet = chain.wallets[5];
    const signed = await wallet.signTransaction(
      await wallet.populateTransaction({ to: wallet.address, value: 1n }),
    );
    const before = a.calls('eth_sendRawTransaction');
    const sent = pool.provider.send('eth_sendRawTransaction', [signed]) as Promise<string>;
    // a answers the first send 503, then the sends after its backoff (a share of a's requests
    // answered 503 depended on the order in which a saw them, other requests to a included).
    await waitUntil('the first send to a', () => a.calls('eth_sendRawTransaction') > before);
    await a.set({ serverErrorShare: 0 });
    const hash = await sent;
    expect(a.calls('eth_sendRawTransaction') - before).toBeGreaterThanOrEqual(2);
    expect((await chain.provider.getTransactionReceipt(hash))?.status).toBe(1);
  });

  it('succeeds with one provider dark', async () => {
    await b.set({ dark: 'hang' });
    const pool = pooled();
    const wallet = chain.wallets[4];
    const signed = await wallet.signTransaction(
      await wallet.populateTransaction({ to: wallet.address, value: 1n }),
    );
    const hash = (await pool.provider.send('eth_sendRawTransaction', [signed])) as string;
    expect((await chain.provider.getTransactionReceipt(hash))?.status).toBe(1);
  });
});
