import { AbiCoder, getAddress, zeroPadValue } from 'ethers';
import { appFactoryInterface, appInterface, encodeActionId } from '../../src/chain/contracts';
import {
  decodeLogs,
  discoverContracts,
  topics,
  type ChainLog,
  type KnownContracts,
} from '../../src/indexer/log-decoder';
import { parseMetadataDocument } from '../../src/modules/badges/badge-metadata-fetcher';
import { chainTextOf, storableText } from '../../src/stored-text';

/**
 * The edge where names enter Laurel: the log decoder reads the `string` parameters of AppCreated,
 * CreditTokenCreated and BadgeCreated as the bytes anyone may have put there, and keeps them as
 * text PostgreSQL stores (chainTextOf), with the bytes beside a text that is not exactly them.
 */
const limits = { maxBytes: 16, rawMaxBytes: 24 };
const abi = AbiCoder.defaultAbiCoder();
const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
const topic = (n: number) => zeroPadValue(address(n), 32);
const FACTORY = address(0xfac);
const APP = address(0xa99);
const OWNER = address(0x0e);
const XP = address(0x10);
const TOKEN = address(0x70);
const BADGE = address(0xb0);

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

function log(n: number, address: string, topicList: string[], data: string): ChainLog {
  return {
    address,
    topics: topicList,
    data,
    blockNumber: 7,
    logIndex: n,
    transactionHash: `0x${n.toString(16).padStart(64, '0')}`,
  };
}

const appCreated = (n: number, name: Uint8Array) =>
  log(
    n,
    FACTORY,
    [topics.appCreated, topic(0xa99), topic(0x0e)],
    abi.encode(['bytes', 'address'], [name, XP]),
  );

function known(): KnownContracts {
  return { factory: FACTORY, apps: new Set(), tokens: new Map(), badges: new Set() };
}

describe('chainTextOf', () => {
  it('keeps valid UTF-8 as it is, with no bytes beside it', () => {
    expect(chainTextOf(bytes('Gold 🥇'), limits)).toEqual({ text: 'Gold 🥇', raw: null });
  });

  it('replaces NUL and each invalid UTF-8 sequence by U+FFFD and keeps the bytes', () => {
    const value = bytes('a', [0], 'b', [0xff], 'c', [0xe2, 0x82], 'd');
    expect(chainTextOf(value, limits)).toEqual({ text: 'a\uFFFDb\uFFFDc\uFFFDd', raw: value });
  });

  it('cuts a long text at a character boundary within maxBytes, and keeps rawMaxBytes of the bytes', () => {
    const value = bytes('é'.repeat(20)); // 40 bytes
    const { text, raw } = chainTextOf(value, limits);
    expect(text).toBe('é'.repeat(8));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limits.maxBytes);
    expect(raw).toEqual(value.subarray(0, limits.rawMaxBytes));
    // A cut inside a 4-byte character drops the whole character.
    expect(chainTextOf(bytes('abcdefghijklmno🥇'), limits).text).toBe('abcdefghijklmno');
  });

  it('storableText replaces NUL and unpaired surrogates', () => {
    expect(storableText('a\u0000b\ud800c🥇')).toBe('a\uFFFDb\uFFFDc🥇');
  });
});

describe('decodeLogs at the edge', () => {
  it('decodes names that ethers refuses (invalid UTF-8) and names holding NUL', () => {
    const contracts = known();
    const badName = bytes('Bad', [0xc3, 0x28], 'App', [0]);
    const logs = [appCreated(0, badName)];
    // ethers' own decoding of the same log refuses the name.
    expect(() => appFactoryInterface.parseLog(logs[0])!.args.name as unknown).toThrow();
    discoverContracts(logs, contracts);
    expect(contracts.apps.has(APP)).toBe(true);
    const { events, undecodable } = decodeLogs(logs, contracts, limits);
    expect(undecodable).toEqual([]);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'app',
        app: APP,
        owner: OWNER,
        xpToken: XP,
        name: { text: 'Bad\uFFFD(App\uFFFD', raw: badName },
      }),
    ]);
  });

  it('decodes the token and badge names, symbols and base URIs the same way', () => {
    const contracts = known();
    contracts.apps.add(APP);
    const tokenName = bytes([0xf0, 0x9f], 'Coin');
    const badgeUri = bytes('ipfs://', [0], 'x');
    const logs = [
      log(
        1,
        APP,
        [topics.creditTokenCreated, topic(0x70)],
        abi.encode(['bytes', 'bytes', 'uint8', 'bool'], [tokenName, bytes('C'), 6, true]),
      ),
      log(
        2,
        APP,
        [topics.badgeCreated, topic(0xb0)],
        abi.encode(['bytes', 'bytes'], [bytes('Gold'), badgeUri]),
      ),
    ];
    discoverContracts(logs, contracts);
    expect(contracts.tokens.get(TOKEN)).toBe('point');
    expect(contracts.badges.has(BADGE)).toBe(true);
    const { events } = decodeLogs(logs, contracts, limits);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'token',
        name: { text: '\uFFFDCoin', raw: tokenName },
        symbol: { text: 'C', raw: null },
        decimals: 6,
        kind: 'point',
      }),
      expect.objectContaining({
        type: 'badge',
        name: { text: 'Gold', raw: null },
        baseUri: { text: 'ipfs://\uFFFDx', raw: badgeUri },
      }),
    ]);
  });

  it('returns a log that does not decode as undecodable, and decodes its neighbours', () => {
    const contracts = known();
    const good = appCreated(1, bytes('Good'));
    // AppCreated whose data ends inside the name: neither discovered nor decoded, never thrown.
    const truncated = appCreated(0, bytes('x'.repeat(40)));
    truncated.data = truncated.data.slice(0, 2 + 64 * 3 + 10);
    discoverContracts([truncated, good], contracts);
    contracts.apps.add(APP);
    const rewardData = abi.encode(['uint8', 'uint256', 'bytes32'], [9, 1n, encodeActionId('play')]);
    const reward = log(2, APP, [topics.rewarded, topic(0xa99), topic(0x0e), topic(0x10)], rewardData);
    const { events, undecodable } = decodeLogs([truncated, good, reward], contracts, limits);
    expect(events.map((event) => event.logIndex)).toEqual([1]);
    expect(undecodable.map(({ log: bad, reason }) => [bad.logIndex, reason])).toEqual([
      [0, expect.stringMatching(/^undecodable: /)],
      [2, 'undecodable: not a Rewarded event of an app'],
    ]);
    expect(appInterface.getEvent('Rewarded')!.topicHash).toBe(topics.rewarded);
  });
});

describe('badge metadata documents from hosts Laurel does not control', () => {
  const parse = (text: string) => parseMetadataDocument(Buffer.from(text), 4096);

  it('refuses an unpaired surrogate as it refuses NUL (jsonb holds neither), not to be retried', () => {
    expect(parse('{"name":"a\\ud800"}')).toEqual({
      ok: false,
      kind: 'not_json',
      reason: 'the document holds an unpaired surrogate (\\ud800), which cannot be stored',
      retryable: false,
      retryAfterSeconds: null,
    });
    expect(parse('{"name\\u0000":1}')).toMatchObject({ ok: false, reason: expect.stringMatching(/NUL/) });
  });

  it('keeps a paired surrogate, an escaped backslash before u0000, and invalid UTF-8 as U+FFFD', () => {
    expect(parse('{"a":"\\ud83e\\udd47","b":"\\\\u0000"}')).toEqual({
      ok: true,
      document: { a: '🥇', b: '\\u0000' },
    });
    const invalid = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]);
    expect(parseMetadataDocument(invalid, 4096)).toEqual({ ok: true, document: { a: 'x\uFFFD\uFFFD' } });
  });
});
