import { logRangeAdvice } from '../../src/chain/log-ranges';
import { RequestRate } from '../../src/chain/request-rate';
import { classifyRpcError, isAlreadyKnown, retryAfterMs } from '../../src/chain/rpc-failures';

describe('logRangeAdvice: eth_getLogs refusals of hosted providers', () => {
  it.each([
    // [provider, code, message, refused span, advice]
    ['QuickNode', 'eth_getLogs is limited to a 10,000 range', 20_000, { kind: 'range', maxSpan: 10_000 }],
    ['public node', 'exceed maximum block range: 5000', 8_000, { kind: 'range', maxSpan: 5_000 }],
    ['publicnode', 'maximum block range: 50000', 60_000, { kind: 'range', maxSpan: 50_000 }],
    ['Cloudflare', 'Max range: 800', 2_000, { kind: 'range', maxSpan: 800 }],
    ['Coinbase', 'please limit the query to at most 1000 blocks', 2_000, { kind: 'range', maxSpan: 1_000 }],
    [
      'thirdweb',
      'Maximum allowed number of requested blocks is 1000',
      2_000,
      { kind: 'range', maxSpan: 1_000 },
    ],
    ['Ankr', 'block range is too wide', 5_000, { kind: 'range', maxSpan: 2_500 }],
    ['Base', 'block range too large', 5_000, { kind: 'range', maxSpan: 2_500 }],
    ['Chainstack', 'Block range limit exceeded.', 400, { kind: 'range', maxSpan: 200 }],
    ['Infura', 'query returned more than 10000 results', 2_000, { kind: 'results', maxSpan: 1_000 }],
    [
      'Infura (with a range)',
      'query returned more than 10000 results. Try with this block range [0x10, 0x2f].',
      2_000,
      { kind: 'results', maxSpan: 32 },
    ],
    [
      'Alchemy',
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0xc5dc00, 0xc614a7]',
      20_000,
      { kind: 'results', maxSpan: 0xc614a7 - 0xc5dc00 + 1 },
    ],
    ['Arbitrum', 'logs matched by query exceeds limit of 10000', 2_000, { kind: 'results', maxSpan: 1_000 }],
    [
      'a stated limit above the refused span',
      'eth_getLogs is limited to a 10,000 range',
      300,
      { kind: 'range', maxSpan: 299 },
    ],
  ])('%s', (_provider, message, span, advice) => {
    expect(logRangeAdvice(message, span)).toEqual(advice);
  });

  it('is null for a message that is not about limits', () => {
    expect(logRangeAdvice('invalid argument 0: hex string without 0x prefix', 100)).toBeNull();
  });
});

describe('classifyRpcError', () => {
  it.each([
    ['eth_getLogs', -32005, 'query returned more than 10000 results', 'log-limit'],
    ['eth_getLogs', -32602, 'eth_getLogs is limited to a 10,000 range', 'log-limit'],
    ['eth_call', -32005, 'limit exceeded', 'throttled'],
    ['eth_call', 429, 'Too Many Requests', 'throttled'],
    ['eth_blockNumber', -32000, 'Your app has exceeded its compute units per second capacity', 'throttled'],
    ['eth_getBlockByNumber', -32000, 'header not found', 'unavailable'],
    ['eth_call', -32603, 'upstream request timeout', 'unavailable'],
    ['eth_call', 3, 'execution reverted', 'answer'],
    ['eth_estimateGas', -32000, 'execution reverted: rate limit of the contract', 'answer'],
    ['eth_sendRawTransaction', -32000, 'nonce too low', 'answer'],
    ['eth_feeHistory', -32601, 'the method eth_feeHistory does not exist/is not available', 'answer'],
  ])('%s %i %j is %s', (method, code, message, kind) => {
    expect(classifyRpcError(method, { code, message })).toBe(kind);
  });

  it('knows a node that already has the transaction', () => {
    for (const message of [
      'already known',
      'known transaction: 0xabc',
      'ALREADY_EXISTS: already known',
      'transaction already in mempool',
    ]) {
      expect(isAlreadyKnown({ code: -32000, message })).toBe(true);
    }
    expect(isAlreadyKnown({ code: -32000, message: 'nonce too low' })).toBe(false);
  });
});

describe('retryAfterMs', () => {
  const now = Date.UTC(2030, 0, 1);
  it.each([
    ['2', 2_000],
    ['0.5', 500],
    [new Date(now + 7_000).toUTCString(), 7_000],
    ['3600', 60_000], // at most a minute
    ['soon', undefined],
    [null, undefined],
  ])('%j is %j ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });
});

describe('RequestRate', () => {
  it('lets a second’s worth through at once, then one call per 1/rate s; reservations queue', () => {
    const rate = new RequestRate(4, 0);
    expect([1, 2, 3, 4].map(() => rate.take(1, 0))).toEqual([0, 0, 0, 0]);
    expect(rate.take(1, 0)).toBe(250);
    expect(rate.take(1, 0)).toBe(500);
    expect(rate.waitFor(1, 500)).toBe(250);
    expect(rate.waitFor(1, 2_000)).toBe(0);
  });

  it('makes a batch wait for as many calls as it holds (up to a full bucket)', () => {
    const rate = new RequestRate(10, 0);
    expect(rate.take(6, 0)).toBe(0);
    expect(rate.take(6, 0)).toBe(200);
    expect(rate.waitFor(20, 0)).toBe(1_200);
  });
});
