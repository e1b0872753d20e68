import {
  isImmutableUri,
  mayPass,
  metadataUrlOf,
  parseMetadataDocument,
} from '../../src/modules/badges/badge-metadata-fetcher';

const GATEWAY = 'https://gateway.example/ipfs/';

describe('metadataUrlOf', () => {
  it.each([
    ['https://meta.example/badges/1.json', 'https://meta.example/badges/1.json'],
    ['HTTPS://meta.example/a', 'HTTPS://meta.example/a'],
    ['ipfs://bafycid/1.json', `${GATEWAY}bafycid/1.json`],
    ['ipfs://bafycid', `${GATEWAY}bafycid`],
    // A common mistake: the gateway path written into the URI.
    ['ipfs://ipfs/bafycid/meta', `${GATEWAY}bafycid/meta`],
  ])('reads %s at %s', (uri, url) => {
    expect(metadataUrlOf(uri, GATEWAY)).toBe(url);
  });

  it.each(['http://meta.example/1.json', 'ipfs://', 'ar://tx', 'data:application/json,{}', 'gold', ''])(
    'reads nothing for %j',
    (uri) => {
      expect(metadataUrlOf(uri, GATEWAY)).toBeNull();
    },
  );

  it('knows ipfs:// content never changes, https:// content may', () => {
    expect(isImmutableUri('ipfs://bafycid/1.json')).toBe(true);
    expect(isImmutableUri('https://meta.example/1.json')).toBe(false);
  });
});

describe('parseMetadataDocument', () => {
  const parse = (text: string, maxBytes = 1024) => parseMetadataDocument(Buffer.from(text), maxBytes);

  it('accepts a JSON object (a byte-order mark before it too)', () => {
    expect(parse('{"name":"Gold","attributes":[{"value":1}]}')).toEqual({
      ok: true,
      document: { name: 'Gold', attributes: [{ value: 1 }] },
    });
    expect(parse('\uFEFF{"name":"Gold"}')).toEqual({ ok: true, document: { name: 'Gold' } });
  });

  it.each([
    ['[1,2]', 'not_object', 'the document is an array, not a JSON object'],
    ['null', 'not_object', 'the document is null, not a JSON object'],
    ['"gold"', 'not_object', 'the document is string, not a JSON object'],
    ['<html>', 'not_json', expect.stringMatching(/^the document is not JSON: /)],
    ['{"name":"a\\u0000b"}', 'not_json', expect.stringMatching(/NUL character/)],
    [
      `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`,
      'not_json',
      'the document is nested more than 32 levels deep',
    ],
  ])('refuses %s (%s), not to be retried', (text, kind, reason) => {
    expect(parse(text)).toEqual({ ok: false, kind, reason, retryable: false, retryAfterSeconds: null });
  });

  it('refuses a body past maxBytes', () => {
    expect(parse(`{"a":"${'x'.repeat(20)}"}`, 16)).toEqual({
      ok: false,
      kind: 'too_large',
      reason: 'the document is larger than 16 bytes',
      retryable: false,
      retryAfterSeconds: null,
    });
  });
});

describe('mayPass', () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [503, true],
    [599, true],
    [404, false],
    [410, false],
    [600, false],
    [999, false],
  ])('a host answering HTTP %p is retried: %p', (status, retried) => {
    expect(mayPass(status)).toBe(retried);
  });
});
