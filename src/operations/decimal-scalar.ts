import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DecimalInput, isDecimalText } from '../validation';

function parseDecimal(value: unknown): DecimalInput {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    // Numbers are accepted for convenience; their shortest round-trip text is what the client wrote.
    return new DecimalInput(String(value));
  }
  if (typeof value === 'string' && isDecimalText(value)) return new DecimalInput(value);
  throw new GraphQLError(
    'Decimal must be a non-negative decimal number in formatted units, e.g. "1.5" (a string keeps every digit)',
  );
}

/**
 * Amounts in formatted units, exact: a decimal string such as `"123456789.123456789123456789"`
 * (or, for convenience, a number). GraphQL's Float would round such values to a double.
 */
export const DecimalScalar = new GraphQLScalarType<DecimalInput, string>({
  name: 'Decimal',
  description:
    'A non-negative decimal amount in formatted units, e.g. "1.5"; a string keeps every digit (a number is accepted too)',
  parseValue: parseDecimal,
  parseLiteral(ast) {
    if (ast.kind === Kind.STRING) return parseDecimal(ast.value);
    // A numeric literal's own text is exact; only exponent forms go through a double.
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT) {
      return isDecimalText(ast.value) ? new DecimalInput(ast.value) : parseDecimal(Number(ast.value));
    }
    throw new GraphQLError('Decimal must be a string or a number', { nodes: ast });
  },
  serialize(value) {
    if (value instanceof DecimalInput) return value.text;
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    throw new GraphQLError('Decimal cannot represent this value');
  },
});
