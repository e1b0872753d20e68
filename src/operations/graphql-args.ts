import { GraphQLScalarType } from 'graphql';
import { ArgsType, Field, Float, InputType, Int, type ClassType } from 'type-graphql';
import { z } from 'zod';
import { DecimalInput, ZodAmount, ZodDigits } from '../validation';
import { DecimalScalar } from './decimal-scalar';

/** What a GraphQL argument's type can be: a scalar, an input object, or a list of one. */
export type GraphQLArgType = GraphQLScalarType | StringConstructor | BooleanConstructor | ClassType;
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
  // REST's digit strings (page, page_size, start, end) are numbers to GraphQL clients.
  if (schema instanceof ZodDigits) return Int;
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

/** A class whose fields are the zod object's, each with its derived GraphQL type. */
function classWithFields(input: z.ZodTypeAny, name: string): ClassType | null {
  const args = Object.entries(deriveArgs(input));
  if (args.length === 0) return null;
  const FieldsClass = { [name]: class {} }[name];
  for (const [field, arg] of args) {
    Field(() => arg.type, { nullable: arg.nullable, description: arg.description })(
      FieldsClass.prototype,
      field,
    );
  }
  return FieldsClass;
}

/**
 * A type-graphql `@ArgsType` class built from an operation's zod input: one field per key, with
 * the type, nullability and description the zod field states. Null when the input has no fields.
 */
export function argsClassOf(input: z.ZodTypeAny, name: string): ClassType | null {
  const ArgsClass = classWithFields(input, name);
  if (ArgsClass) ArgsType()(ArgsClass);
  return ArgsClass;
}

/** The zod schemas given a GraphQL input type, with the zod object whose fields it has (read field by field too). */
const inputObjects = new WeakMap<z.ZodTypeAny, z.AnyZodObject>();

/**
 * Gives a nested zod object (an argument made of fields, e.g. a signature's r, s, v) the GraphQL
 * input type `name` derived from its fields the same way as arguments; returns the object.
 */
export function withGraphQLInputType<S extends z.AnyZodObject>(
  schema: S,
  name: string,
  description: string,
): S {
  return withGraphQLInputTypeOf(schema, schema, name, description);
}

/**
 * Gives `schema` (say a discriminated union, which GraphQL inputs cannot express) the GraphQL
 * input type `name` derived from the fields of `fields` (e.g. every member's fields, the
 * discriminator a string); zod's `schema` still validates the value. Returns `schema`.
 */
export function withGraphQLInputTypeOf<S extends z.ZodTypeAny>(
  schema: S,
  fields: z.AnyZodObject,
  name: string,
  description: string,
): S {
  const InputClass = classWithFields(fields, name);
  if (!InputClass) throw new Error(`input type ${name} has no fields`);
  InputType(name, { description })(InputClass);
  inputObjects.set(schema, fields);
  return withGraphQLType(schema, InputClass);
}

type ValueReader = (value: unknown) => unknown;
type ArgsReader = (args: Record<string, unknown>) => Record<string, unknown>;

/**
 * How an operation's GraphQL arguments become the input its zod schema parses, the same input REST
 * gives: `null` means absent (as a missing REST field), an `Int` of a digits parameter is its
 * digits, an input object is a plain object read the same way. Built once per operation.
 */
export function graphqlArgsReader(input: z.ZodTypeAny): ArgsReader {
  return objectReader(inputShape(input));
}

function objectReader(shape: z.ZodRawShape): ArgsReader {
  const readers = new Map<string, ValueReader>();
  for (const [name, field] of Object.entries(shape)) {
    const reader = valueReader(field as z.ZodTypeAny);
    if (reader) readers.set(name, reader);
  }
  return (args) => {
    const present: Record<string, unknown> = {};
    for (const key in args) {
      const value = args[key];
      if (value === null) continue;
      const reader = readers.get(key);
      present[key] = reader ? reader(value) : value;
    }
    return present;
  };
}

function valueReader(field: z.ZodTypeAny): ValueReader | null {
  const { schema } = unwrapField(field);
  const fields = inputObjects.get(schema);
  if (fields) {
    const read = objectReader(inputShape(fields));
    return (value) =>
      typeof value === 'object' && value !== null ? read(value as Record<string, unknown>) : value;
  }
  if (schema instanceof z.ZodArray) {
    const read = valueReader(schema.element as z.ZodTypeAny);
    return read && ((value) => (Array.isArray(value) ? value.map(read) : value));
  }
  if (schema instanceof ZodDigits) return (value) => (typeof value === 'number' ? String(value) : value);
  if (schema instanceof ZodAmount) return decimalOfCompiledLiteral;
  return null;
}

/**
 * graphql-jit writes a literal argument's parsed value into the code it compiles as an object
 * literal, so from a document's second run on a `Decimal` literal (a DecimalInput, which the scalar
 * made from text it checked) arrives as a plain `{ text }`. A variable never does: the scalar refuses
 * an object.
 */
function decimalOfCompiledLiteral(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || value instanceof DecimalInput) return value;
  const { text } = value as { text?: unknown };
  return Object.keys(value).length === 1 && typeof text === 'string' ? new DecimalInput(text) : value;
}
