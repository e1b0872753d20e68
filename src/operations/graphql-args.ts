import { GraphQLScalarType } from 'graphql';
import { ArgsType, Field, Float, Int, type ClassType } from 'type-graphql';
import { z } from 'zod';
import { ZodAmount } from '../validation';
import { DecimalScalar } from './decimal-scalar';

/** What a GraphQL argument's type can be: a scalar, or a list of one. */
export type GraphQLArgType = GraphQLScalarType | StringConstructor | BooleanConstructor;
type GraphQLArgTypeValue = GraphQLArgType | [GraphQLArgType];

/** Zod fields whose GraphQL type is not the one derived from their zod type (e.g. an `ID`). */
const typeOverrides = new WeakMap<z.ZodTypeAny, GraphQLArgTypeValue>();

/**
 * Gives a zod field an explicit GraphQL type (say `ID` for a key's id); returns the field. Apply it
 * last: zod's `.describe()`, `.optional()` and the like return new schemas.
 */
export function withGraphQLType<S extends z.ZodTypeAny>(schema: S, type: GraphQLArgTypeValue): S {
  typeOverrides.set(schema, type);
  return schema;
}

/** One argument as GraphQL sees it, derived from its zod field. */
export interface DerivedArg {
  type: GraphQLArgTypeValue;
  /** Optional, nullable or defaulted in zod: GraphQL `null` or absent means absent. */
  nullable: boolean;
  description?: string;
}

function baseType(schema: z.ZodTypeAny): GraphQLArgTypeValue {
  const override = typeOverrides.get(schema);
  if (override) return override;
  if (schema instanceof ZodAmount) return DecimalScalar;
  if (schema instanceof z.ZodString || schema instanceof z.ZodEnum) return String;
  if (schema instanceof z.ZodBoolean) return Boolean;
  if (schema instanceof z.ZodNumber) return schema.isInt ? Int : Float;
  if (schema instanceof z.ZodArray) {
    const item = baseType(unwrapField(schema.element).schema);
    if (Array.isArray(item)) throw new Error('nested lists are not supported as GraphQL arguments');
    return [item];
  }
  throw new Error(`no GraphQL argument type for zod type ${schema.constructor.name}`);
}

/** Peels optional/nullable/default/effects wrappers, noting nullability and the outermost description. */
export function unwrapField(field: z.ZodTypeAny): {
  schema: z.ZodTypeAny;
  nullable: boolean;
  description?: string;
} {
  let schema = field;
  let nullable = false;
  let description: string | undefined;
  for (;;) {
    description ??= schema.description;
    if (typeOverrides.has(schema)) break;
    if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
      nullable = true;
      schema = schema.unwrap() as z.ZodTypeAny;
    } else if (schema instanceof z.ZodDefault) {
      nullable = true;
      schema = schema.removeDefault() as z.ZodTypeAny;
    } else if (schema instanceof z.ZodEffects) {
      schema = schema.innerType() as z.ZodTypeAny;
    } else {
      break;
    }
  }
  return { schema, nullable, description };
}

/** The object shape of an operation's input schema (under any refinements). */
export function inputShape(input: z.ZodTypeAny): z.ZodRawShape {
  const { schema } = unwrapField(input);
  if (!(schema instanceof z.ZodObject)) throw new Error('an operation input must be a zod object');
  return schema.shape as z.ZodRawShape;
}

/** Every argument of an operation, derived from its input schema: the one definition of both. */
export function deriveArgs(input: z.ZodTypeAny): Record<string, DerivedArg> {
  return Object.fromEntries(
    Object.entries(inputShape(input)).map(([name, field]) => {
      const { schema, nullable, description } = unwrapField(field);
      return [name, { type: baseType(schema), nullable, description }];
    }),
  );
}

/**
 * A type-graphql `@ArgsType` class built from an operation's zod input: one field per key, with
 * the type, nullability and description the zod field states. Null when the input has no fields.
 */
export function argsClassOf(input: z.ZodTypeAny, name: string): ClassType | null {
  const args = Object.entries(deriveArgs(input));
  if (args.length === 0) return null;
  const ArgsClass = { [name]: class {} }[name];
  for (const [field, arg] of args) {
    Field(() => arg.type, { nullable: arg.nullable, description: arg.description })(
      ArgsClass.prototype,
      field,
    );
  }
  ArgsType()(ArgsClass);
  return ArgsClass;
}
