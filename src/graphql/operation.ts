import {
  Args,
  Authorized,
  createMethodMiddlewareDecorator,
  createParameterDecorator,
  Ctx,
  Mutation,
  Query,
  type ClassType,
} from 'type-graphql';
import type { z } from 'zod';
import type { RequestContext } from '../context';
import { parseInput } from '../validation';
import { argsClassOf } from './zod-args';

/** What an operation answers in GraphQL: an object type, a list of one, or a scalar. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type OperationOutput = ClassType | [ClassType] | Function | [Function];

export interface OperationDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  kind: 'query' | 'mutation';
  /** The operation's input: GraphQL arguments, validation and REST parsing all come from it. */
  input: S;
  output: OperationOutput;
  description: string;
  /** Needs no API key (the key-issuing operations). */
  public?: boolean;
}

/** An operation's resolver method: validated input and the request context in, its result out. */
export type OperationMethod<S extends z.ZodTypeAny> = (
  input: z.output<S>,
  ctx: RequestContext,
) => Promise<unknown>;

/** The operations of each resolver class, by method name: REST mounting reads them. */
const operationsByClass = new WeakMap<object, Map<string, OperationDefinition>>();

export function operationOf(resolverClass: object, method: string): OperationDefinition {
  const operation = operationsByClass.get(resolverClass)?.get(method);
  if (!operation) throw new Error(`${(resolverClass as ClassType).name}.${method} is not an @Operation`);
  return operation;
}

/** Every @Operation of a resolver class, by method name. */
export function operationsOf(resolverClass: object): ReadonlyMap<string, OperationDefinition> {
  return operationsByClass.get(resolverClass) ?? new Map();
}

/** Validates GraphQL arguments with the operation's schema; GraphQL `null` means "absent". */
function validateWith(schema: z.ZodTypeAny): MethodDecorator {
  return createMethodMiddlewareDecorator(async ({ args }, next) => {
    const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
    const parsed = parseInput(schema, present) as Record<string, unknown>;
    for (const key of Object.keys(args)) delete args[key];
    Object.assign(args, parsed);
    return next();
  });
}

/** The input of an operation without fields: an empty object, so every method has the same shape. */
const noArgs = createParameterDecorator(() => ({}));

/**
 * Declares a resolver method as one operation of the API, from one definition: its GraphQL
 * arguments are derived from `input` (types, optionality, descriptions), every call is validated
 * with `input` before the method runs, and operations need an API key unless `public`. The method
 * must take `(input: z.output<typeof input>, ctx)`: TypeScript rejects any other signature. REST
 * routes call the same method with the same schema (src/http/rest.ts).
 */
export function Operation<S extends z.ZodTypeAny>(definition: OperationDefinition<S>) {
  return <M extends OperationMethod<S>>(
    prototype: object,
    method: string,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    const argsClass = argsClassOf(definition.input, `${method[0].toUpperCase()}${method.slice(1)}Args`);
    if (argsClass) Args(() => argsClass)(prototype, method, 0);
    else noArgs(prototype, method, 0);
    Ctx()(prototype, method, 1);
    validateWith(definition.input)(prototype, method, descriptor);
    if (!definition.public) Authorized()(prototype, method, descriptor);
    const declare = definition.kind === 'query' ? Query : Mutation;
    declare(() => definition.output, { description: definition.description })(prototype, method, descriptor);

    const resolverClass = prototype.constructor;
    const operations = operationsByClass.get(resolverClass) ?? new Map<string, OperationDefinition>();
    operations.set(method, definition);
    operationsByClass.set(resolverClass, operations);
  };
}
