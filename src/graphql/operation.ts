import { Args, createParameterDecorator, Ctx, Mutation, Query, type ClassType } from 'type-graphql';
import type { z } from 'zod';
import type { RequestContext } from '../context';
import { UnauthenticatedError } from '../errors';
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

/** An operation's method as stored: its input type erased (it is the schema's output). */
type DeclaredMethod = (input: unknown, ctx: RequestContext) => Promise<unknown>;

/** An @Operation as registered: its definition, and its method as declared (before GraphQL's wrapper). */
interface RegisteredOperation {
  definition: OperationDefinition;
  declared: DeclaredMethod;
}

/** The operations of each resolver class, by method name: REST mounting reads them. */
const operationsByClass = new WeakMap<object, Map<string, RegisteredOperation>>();

function registeredOperation(resolverClass: object, method: string): RegisteredOperation {
  const registered = operationsByClass.get(resolverClass)?.get(method);
  if (!registered) throw new Error(`${(resolverClass as ClassType).name}.${method} is not an @Operation`);
  return registered;
}

export function operationOf(resolverClass: object, method: string): OperationDefinition {
  return registeredOperation(resolverClass, method).definition;
}

/** An operation's method as declared (it takes validated input): what REST calls. */
export function declaredMethodOf(resolverClass: object, method: string): DeclaredMethod {
  return registeredOperation(resolverClass, method).declared;
}

/** Every @Operation of a resolver class, by method name. */
export function operationsOf(resolverClass: object): ReadonlyMap<string, OperationDefinition> {
  const registered = operationsByClass.get(resolverClass) ?? new Map<string, RegisteredOperation>();
  return new Map([...registered].map(([method, { definition }]) => [method, definition]));
}

/** What GraphQL callers without a key are told (REST answers its documented 401 instead). */
const MISSING_KEY = 'Missing or invalid API key: send it in the X-API-KEY header';

/**
 * The method GraphQL calls in place of the declared one: the key check (unless public), then the
 * arguments validated with the operation's schema (GraphQL `null` means "absent"), then the
 * declared method. A plain wrapper rather than type-graphql middlewares: those cost two async
 * dispatches per call on the hot path.
 */
function graphqlEntry(
  definition: OperationDefinition,
  declared: DeclaredMethod,
): (this: object, args: Record<string, unknown>, ctx: RequestContext) => Promise<unknown> {
  return function (this: object, args, ctx) {
    if (!definition.public && !ctx.account) throw new UnauthenticatedError(MISSING_KEY);
    const present: Record<string, unknown> = {};
    for (const key in args) if (args[key] !== null) present[key] = args[key];
    return declared.call(this, parseInput(definition.input, present), ctx);
  };
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
    const declared = descriptor.value as unknown as DeclaredMethod;
    descriptor.value = graphqlEntry(definition, declared) as unknown as M;
    const declare = definition.kind === 'query' ? Query : Mutation;
    declare(() => definition.output, { description: definition.description })(prototype, method, descriptor);

    const resolverClass = prototype.constructor;
    const operations = operationsByClass.get(resolverClass) ?? new Map<string, RegisteredOperation>();
    operations.set(method, { definition, declared });
    operationsByClass.set(resolverClass, operations);
  };
}
