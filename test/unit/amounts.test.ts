import { formatBaseUnits, MAX_UINT256, toBaseUnits } from '../../src/chain/amounts';
import { ValidationError } from '../../src/errors';
import { isDecimalText } from '../../src/validation';

function issueOf(run: () => unknown): { path: (string | number)[]; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const [issue] = (error as ValidationError).issues;
    return issue;
  }
  throw new Error('expected a validation error');
}

describe('toBaseUnits', () => {
  it.each([
    [1, 18, 10n ** 18n],
    [1.5, 6, 1_500_000n],
    [0.1, 18, 100_000_000_000_000_000n],
    [0.3, 18, 300_000_000_000_000_000n],
    [123.456, 3, 123_456n],
    [42, 0, 42n],
    [1e21, 18, 10n ** 39n],
    [1e-7, 18, 100_000_000_000n],
    [1.5e-7, 8, 15n],
    [2.5e25, 0, 25n * 10n ** 24n],
    [0.000001, 6, 1n],
    [JSON.parse('9007199254740993') as number, 0, 9007199254740992n], // a JSON number past 2^53: the double's value
    // GraphQL's exact decimal text, its exponent's E in either case (as JSON and the client read it).
    ['1E2', 0, 100n],
    ['15E-1', 1, 15n],
  ])('%p with %p decimals is %p', (amount, decimals, expected) => {
    expect(toBaseUnits(amount, decimals, 'amount')).toBe(expected);
  });

  it('refuses a fraction finer than the decimals instead of rounding', () => {
    expect(issueOf(() => toBaseUnits(1.2345678, 6, 'amount'))).toEqual({
      code: 'custom',
      path: ['amount'],
      message: 'amount has more than 6 decimal places',
    });
    expect(issueOf(() => toBaseUnits(0.5, 0, 'amount')).message).toBe(
      'amount has more than 0 decimal places',
    );
    expect(issueOf(() => toBaseUnits(1e-19, 18, 'amount')).message).toBe(
      'amount has more than 18 decimal places',
    );
  });

  it('refuses zero, negative, non-finite and too large amounts on the named field', () => {
    expect(issueOf(() => toBaseUnits(0, 18, 'token_supply'))).toMatchObject({
      path: ['token_supply'],
      message: 'token_supply must be greater than 0',
    });
    expect(toBaseUnits(0, 18, 'token_supply', { allowZero: true })).toBe(0n);
    expect(issueOf(() => toBaseUnits(-1, 18, 'amount')).message).toBe('amount must not be negative');
    expect(issueOf(() => toBaseUnits(Number.NaN, 18, 'amount')).message).toBe(
      'amount must be a finite number',
    );
    expect(issueOf(() => toBaseUnits(Infinity, 18, 'amount')).message).toBe('amount must be a finite number');
    expect(issueOf(() => toBaseUnits(1e60, 18, 'amount')).message).toBe('amount is too large');
    expect(toBaseUnits(1e59, 18, 'amount')).toBe(10n ** 77n);
    expect(10n ** 77n < MAX_UINT256).toBe(true);
  });

  it('refuses a decimal text whose exponent no uint256 holds by its length, whatever the exponent', () => {
    for (const amount of ['1e+78', '1e+60000000', '1e+2000000000', `1e+${'9'.repeat(400)}`]) {
      expect(issueOf(() => toBaseUnits(amount, 0, 'amount')).message).toBe('amount is too large');
    }
    expect(issueOf(() => toBaseUnits('1e+60', 18, 'amount')).message).toBe('amount is too large');
    expect(issueOf(() => toBaseUnits(`1e-${'9'.repeat(400)}`, 18, 'amount')).message).toBe(
      'amount has more than 18 decimal places',
    );
    expect(toBaseUnits(MAX_UINT256.toString(), 0, 'amount')).toBe(MAX_UINT256);
    expect(toBaseUnits('1e+59', 18, 'amount')).toBe(10n ** 77n);
  });
});

describe('formatBaseUnits', () => {
  it.each([
    [10n ** 18n, 18, '1'],
    [1_500_000n, 6, '1.5'],
    [1n, 18, '0.000000000000000001'],
    [0n, 18, '0'],
    [42n, 0, '42'],
    [-1_500_000n, 6, '-1.5'],
    [10n ** 39n, 18, '1000000000000000000000'],
  ])('%p with %p decimals is %p', (raw, decimals, expected) => {
    expect(formatBaseUnits(raw, decimals)).toBe(expected);
  });

  it('round-trips with toBaseUnits', () => {
    for (const amount of [0.1, 1.25, 1e-7, 123456.789, 1e21]) {
      expect(Number(formatBaseUnits(toBaseUnits(amount, 18, 'amount'), 18))).toBe(amount);
    }
  });
});

describe('isDecimalText (what the GraphQL Decimal scalar takes as text)', () => {
  it.each(['1', '1.5', '15e-1', '1E2', '1e+2'])('takes %p', (text) => expect(isDecimalText(text)).toBe(true));
  it.each(['', '-1', '.5', '1.', '1,5', '0x10', 'NaN', '1e', 'e2'])('refuses %p', (text) =>
    expect(isDecimalText(text)).toBe(false),
  );
});
