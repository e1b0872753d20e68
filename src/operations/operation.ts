import { Args, createParameterDecorator, Ctx, Mutation, Query, type ClassType } from 'type-graphql';
import type { z } from 'zod';
import { UnauthenticatedError } from '../errors';
import { traced } from '../tracing';
import { parseInput } from '../validation';
import { argsClassOf, graphqlArgsReader } from './graphql-args';
import type { AuthenticatedContext, RequestContext } from './request-context';

/** What an operation answers in GraphQL: an object type, a list of one, or a scalar. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type OperationOutput = ClassType | [ClassType] | Function | [Function];

export interface OperationDefinition<S extends z.ZodTypeAny = z.ZodTypeAny, P extends boolean = boolean> {
  kind: 'query' | 'mutation';
  /** The operation's input: GraphQL arguments, validation and REST parsing all come from it. */
  input: S;
  output: OperationOutput;
  description: string;
  /** Needs no API key (the key-issuing operations); every other operation gets an account. */
  public?: P;
}

/** The context an operation's method receives: with an account unless the operation is public. */
export type OperationContext<P extends boolean> = P extends true ? RequestContext : AuthenticatedContext;

/** An operation's method: validated input and the request context in, its result out. */
export type OperationMethod<S extends z.ZodTypeAny, P extends boolean> = (
  input: z.output<S>,
  ctx: OperationContext<P>,
) => Promise<unknown>;

/** An operation's method as stored: its input type erased (it is the schema's output). */
type DeclaredMethod = (input: unknown, ctx: RequestContext) => Promise<unknown>;

/** An @Operation as registered: its definition, and its method as declared. */
interface RegisteredOperation {
  definition: OperationDefinition;
  declared: DeclaredMethod;
  /** GraphQL's arguments read as REST's input (`null` is absent, digits parameters are digits). */
  readArgs: (args: Record<string, unknown>) => Record<string, unknown>;
}

/** The operations of each resolver class, by method name. */
const operationsByClass = new WeakMap<object, Map<string, RegisteredOperation>>();

function registeredOperation(resolverClass: object, method: string): RegisteredOperation {
  const registered = operationsByClass.get(resolverClass)?.get(method);
  if (!registered) throw new Error(`${(resolverClass as ClassType).name}.${method} is not an @Operation`);
  return registered;
}

export function operationOf(resolverClass: object, method: string): OperationDefinition {
  return registeredOperation(resolverClass, method).definition;
}

/** Every @Operation of a resolver class, by method name. */
export function operationsOf(resolverClass: object): ReadonlyMap<string, OperationDefinition> {
  const registered = operationsByClass.get(resolverClass) ?? new Map<string, RegisteredOperation>();
  return new Map([...registered].map(([method, { definition }]) => [method, definition]));
}

/** What an operation called without a valid key answers (REST refuses such requests before). */
const MISSING_OR_INVALID_KEY = 'Missing or invalid API key: send it in the X-API-KEY header';

/** An operation's input, validated, once the key check passed (unless the operation is public). */
export function checkedInput<S extends z.ZodTypeAny>(
  definition: { input: S; public?: boolean },
  raw: unknown,
  ctx: RequestContext,
): z.output<S> {
  if (!definition.public && !ctx.account) throw new UnauthenticatedError(MISSING_OR_INVALID_KEY);
  return parseInput(definition.input, raw);
}

/**
 * One call of an operation, whatever the transport: the key check (unless public), the raw input
 * validated with the operation's schema, then the declared method on `resolver`.
 */
function run(
  { definition, declared }: RegisteredOperation,
  resolver: object,
  raw: unknown,
  ctx: RequestContext,
): Promise<unknown> {
  const input = checkedInput(definition, raw, ctx);
  return traced(`operation ${declared.name}`, { 'laurel.request_id': ctx.requestId }, () =>
    declared.call(resolver, input, ctx),
  );
}

/** An operation of a resolver instance, callable with raw input: what REST mounts. */
export interface CallableOperation {
  definition: OperationDefinition;
  call(raw: unknown, ctx: RequestContext): Promise<unknown>;
}

export function callableOperation(resolver: object, method: string): CallableOperation {
  const registered = registeredOperation(resolver.constructor, method);
  return {
    definition: registered.definition,
    call: (raw, ctx) => run(registered, resolver, raw, ctx),
  };
}

/**
 * An operation's GraphQL root field resolver on a resolver instance: the call its method makes
 * (GraphQL's arguments read as REST's input, then run), set on the built schema in place of
 * type-graphql's generic resolver, whose per-call assembly of the method's parameters (sorting
 * them, copying the arguments into an instance of the arguments class) the operation does not
 * need: its own schema validates the input.
 */
export function operationFieldResolver(
  resolver: object,
  method: string,
): (root: unknown, args: Record<string, unknown>, ctx: RequestContext) => Promise<unknown> {
  const registered = registeredOperation(resolver.constructor, method);
  return (_root, args, ctx) => run(registered, resolver, registered.readArgs(args), ctx);
}

/** The input of an operation without fields: an empty object, so every method has the same shape. */
const noArgs = createParameterDecorator(() => ({}));

/**
 * Declares a resolver method as one operation of the API, from one definition: its GraphQL
 * arguments are derived from `input` (types, optionality, descriptions), every call is validated
 * with `input` before the method runs, and operations need an API key unless `public` (the method
 * then receives an AuthenticatedContext). The method must take `(input: z.output<typeof input>,
 * ctx)`: TypeScript rejects any other signature. REST routes call the same method the same way
 * (callableOperation). A plain wrapper rather than type-graphql middlewares: those cost two async
 * dispatches per call on the hot path.
 */
export function Operation<S extends z.ZodTypeAny, P extends boolean = false>(
  definition: OperationDefinition<S, P>,
) {
  return <M extends OperationMethod<S, P>>(
    prototype: object,
    method: string,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    const argsClass = argsClassOf(definition.input, `${method[0].toUpperCase()}${method.slice(1)}Args`);
    if (argsClass) Args(() => argsClass)(prototype, method, 0);
    else noArgs(prototype, method, 0);
    Ctx()(prototype, method, 1);
    const registered: RegisteredOperation = {
      definition: definition as OperationDefinition,
      declared: descriptor.value as unknown as DeclaredMethod,
      readArgs: graphqlArgsReader(definition.input),
    };
    descriptor.value = function (this: object, args: Record<string, unknown>, ctx: RequestContext) {
      return run(registered, this, registered.readArgs(args), ctx);
    } as unknown as M;
    const declare = definition.kind === 'query' ? Query : Mutation;
    declare(() => definition.output, { description: definition.description })(prototype, method, descriptor);

    const resolverClass = prototype.constructor;
    const operations = operationsByClass.get(resolverClass) ?? new Map<string, RegisteredOperation>();
    operations.set(method, registered);
    operationsByClass.set(resolverClass, operations);
  };
}
