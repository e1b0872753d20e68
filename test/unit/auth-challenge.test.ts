import { Wallet, verifyMessage } from 'ethers';
import { ValidationError } from '../../src/errors';
import { renderError, ERROR_ISSUES_BODY } from '../../src/operations/error-shapes';
import {
  verifyChallengeSchema,
  requestChallengeSchema,
  revokeApiKeySchema,
} from '../../src/modules/auth/auth.schema';
import { buildChallengeMessage, verifyChallengeSignature } from '../../src/modules/auth/challenge-message';
import { parseInput } from '../../src/validation';

function shapeCOf(schema: Parameters<typeof parseInput>[0], input: unknown): unknown {
  try {
    parseInput(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return renderError(ERROR_ISSUES_BODY, error as ValidationError).body;
  }
  throw new Error('expected a validation error');
}

describe('the API key challenge message', () => {
  const wallet = Wallet.createRandom();
  const fields = {
    domain: 'api.example.com',
    uri: 'https://api.example.com',
    chainId: 8453,
    address: wallet.address,
    nonce: '0123456789abcdef0123456789abcdef',
    issuedAt: new Date('2026-01-02T03:04:05.000Z'),
    expiresAt: new Date('2026-01-02T03:14:05.000Z'),
  };
  const message = buildChallengeMessage(fields)!;

  it('is an EIP-4361 message naming the domain, URI, chain id, address, nonce and times', () => {
    const lines = message.split('\n');
    expect(lines[0]).toBe('api.example.com wants you to sign in with your Ethereum account:');
    expect(lines[1]).toBe(wallet.address);
    expect(lines[2]).toBe('');
    expect(lines[3]).toMatch(/Laurel API key/);
    expect(lines.slice(4)).toEqual([
      '',
      'URI: https://api.example.com',
      'Version: 1',
      'Chain ID: 8453',
      'Nonce: 0123456789abcdef0123456789abcdef',
      'Issued At: 2026-01-02T03:04:05.000Z',
      'Expiration Time: 2026-01-02T03:14:05.000Z',
    ]);
  });

  it('is what wallet.signMessage signs (EIP-191) and verifyMessage recovers', async () => {
    const signature = await wallet.signMessage(message);
    expect(verifyMessage(message, signature)).toBe(wallet.address);
    expect(verifyMessage(`${message} `, signature)).not.toBe(wallet.address);
  });

  it('is verified for its own domain only, by the wallet it names, until it expires', async () => {
    const live = buildChallengeMessage({ ...fields, expiresAt: new Date(Date.now() + 60_000) })!;
    const signature = await wallet.signMessage(live);
    expect(await verifyChallengeSignature(live, signature, 'api.example.com')).toBe(true);
    expect(await verifyChallengeSignature(live, signature, 'phish.example.net')).toBe(false);
    const stranger = await Wallet.createRandom().signMessage(live);
    expect(await verifyChallengeSignature(live, stranger, 'api.example.com')).toBe(false);
    expect(await verifyChallengeSignature(live, `0x${'ab'.repeat(65)}`, 'api.example.com')).toBe(false);
    expect(await verifyChallengeSignature(live, '0x00', 'api.example.com')).toBe(false);
    // Expired (the message of the test above ended in 2026-01).
    expect(
      await verifyChallengeSignature(message, await wallet.signMessage(message), 'api.example.com'),
    ).toBe(false);
  });

  it('is not made for a host EIP-4361 refuses', () => {
    expect(buildChallengeMessage({ ...fields, domain: 'a b', uri: 'https://a b' })).toBeNull();
  });
});

describe('auth input schemas', () => {
  const address = '0x52908400098527886E0F7030069857D2E4169EE7';

  it('normalise addresses with or without 0x, in any case, to the checksummed form', () => {
    for (const value of [
      address,
      address.toLowerCase(),
      address.slice(2).toUpperCase(),
      `0x${address.slice(2).toUpperCase()}`,
    ]) {
      expect(parseInput(requestChallengeSchema, { public_address: value })).toEqual({
        public_address: address,
      });
    }
  });

  it('normalise signatures to 0x hex', () => {
    expect(parseInput(verifyChallengeSchema, { signature: 'abcd', public_address: address })).toEqual({
      signature: '0xabcd',
      public_address: address,
    });
  });

  it('report missing fields and wrong types in Shape C', () => {
    expect(shapeCOf(verifyChallengeSchema, {})).toEqual({
      error: {
        issues: [
          {
            code: 'invalid_type',
            expected: 'string',
            received: 'undefined',
            path: ['signature'],
            message: 'Required',
          },
          {
            code: 'invalid_type',
            expected: 'string',
            received: 'undefined',
            path: ['public_address'],
            message: 'Required',
          },
        ],
      },
    });
    expect(shapeCOf(requestChallengeSchema, { public_address: 42 })).toEqual({
      error: {
        issues: [
          {
            code: 'invalid_type',
            expected: 'string',
            received: 'number',
            path: ['public_address'],
            message: 'Expected string, received number',
          },
        ],
      },
    });
    expect(shapeCOf(requestChallengeSchema, { public_address: '0x1234' })).toEqual({
      error: {
        issues: [
          {
            validation: 'regex',
            code: 'invalid_string',
            path: ['public_address'],
            message: 'Invalid address',
          },
        ],
      },
    });
  });

  it('reject over-long and non-hex signatures', () => {
    expect(
      shapeCOf(verifyChallengeSchema, { signature: `0x${'a'.repeat(300)}`, public_address: address }),
    ).toEqual({
      error: { issues: [expect.objectContaining({ code: 'too_big', path: ['signature'] })] },
    });
    expect(shapeCOf(verifyChallengeSchema, { signature: '0xnothex', public_address: address })).toEqual({
      error: { issues: [expect.objectContaining({ code: 'invalid_string', path: ['signature'] })] },
    });
  });

  it('take a UUID to revoke', () => {
    expect(parseInput(revokeApiKeySchema, { id: '6f1c2a57-2b1e-4a56-9a4e-3f3f1b0b9b0c' })).toBeTruthy();
    expect(() => parseInput(revokeApiKeySchema, { id: '42' })).toThrow(ValidationError);
  });
});
