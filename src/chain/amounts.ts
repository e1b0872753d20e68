import { ValidationError } from '../errors';
import { isDecimalText, type Amount } from '../validation';

/** The largest value a uint256 holds. */
export const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_UINT256_DIGITS = MAX_UINT256.toString().length;

/**
 * Converts an amount given in formatted units (a JSON number, e.g. `1.5` tokens, or GraphQL's exact
 * decimal text, e.g. `"1.5"`) into base units (`1500000000000000000n` for 18 decimals), exactly.
 *
 * A number is read from its shortest round-trip decimal representation (`String(amount)`: what
 * the client wrote in its JSON, as far as a double can tell), including exponent notation
 * (`1e21`, `1e-7`), and shifted by `decimals` with bigint arithmetic: never a float multiplication,
 * so `0.1` with 18 decimals is exactly 100000000000000000n.
 *
 * Refused with a ValidationError on `field` (never silently rounded):
 * - not a finite number, or negative;
 * - a fraction finer than `decimals` (`"amount has more than 6 decimal places"`);
 * - a result of 0 (unless `allowZero`), or more than a uint256 holds.
 */
export function toBaseUnits(
  amount: Amount,
  decimals: number,
  field: string,
  options: { allowZero?: boolean } = {},
): bigint {
  if (typeof amount === 'string') {
    if (!isDecimalText(amount)) throw ValidationError.field(field, `${field} is not a decimal number`);
  } else if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw ValidationError.field(field, `${field} must be a finite number`);
  }
  if (!Number.isInteger(decimals) || decimals < 0) throw new RangeError(`invalid decimals: ${decimals}`);
  if (typeof amount === 'number' && amount < 0) {
    throw ValidationError.field(field, `${field} must not be negative`);
  }

  const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(String(amount));
  if (!match) throw ValidationError.field(field, `${field} is not a decimal number`);
  const [, whole, fraction = '', exponent = '0'] = match;
  // value = digits × 10^scale
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let scale = Number(exponent) - fraction.length;
  const trailingZeros = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailingZeros);
  scale += trailingZeros;

  let raw = 0n;
  if (digits.length > 0) {
    if (-scale > decimals) {
      throw ValidationError.field(field, `${field} has more than ${decimals} decimal places`);
    }
    // Refused by its length, before any power of ten is computed: an exponent such as 1e+60000000
    // would otherwise hold the event loop for seconds.
    if (digits.length + scale + decimals > MAX_UINT256_DIGITS) {
      throw ValidationError.field(field, `${field} is too large`);
    }
    raw = BigInt(digits) * 10n ** BigInt(scale + decimals);
  }
  if (raw === 0n && !options.allowZero) throw ValidationError.field(field, `${field} must be greater than 0`);
  if (raw > MAX_UINT256) throw ValidationError.field(field, `${field} is too large`);
  return raw;
}

/**
 * Formats base units as a decimal string in formatted units: `1500000n, 6` → `"1.5"`,
 * `10n ** 18n, 18` → `"1"` (no trailing zeros, no exponent notation).
 */
export function formatBaseUnits(raw: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) throw new RangeError(`invalid decimals: ${decimals}`);
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
