/**
 * Amounts as Laurel converts them (src/chain/amounts.ts on the server, drift-tested against it in
 * test/client/verify.test.ts): a formatted amount (a JSON number such as `1.5`, or decimal text)
 * shifted by the token's decimals with bigint arithmetic, never a float multiplication.
 */

/**
 * `amount` in base units for a token of `decimals` decimals: `1.5, 6` → `1500000n`. A number is read
 * from `String(amount)` (what its JSON carries, exponent notation included), as Laurel reads it.
 * Throws a RangeError for what Laurel refuses (negative, not a number, finer than `decimals`).
 */
export function toBaseUnits(amount: number | string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(amount));
  if (!match) throw new RangeError(`${String(amount)} is not a non-negative decimal number`);
  const [, whole, fraction = '', exponent = '0'] = match;
  // value = digits × 10^scale
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let scale = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  scale += digits.length - trimmed.length;
  digits = trimmed;
  if (digits.length === 0) return 0n;
  if (-scale > decimals) throw new RangeError(`${String(amount)} has more than ${decimals} decimal places`);
  return BigInt(digits) * 10n ** BigInt(scale + decimals);
}
