import { Args, createParameterDecorator, Ctx, Mutation, Query, type ClassType } from 'type-graphql';
import type { z } from 'zod';
import { defineFailure, INVALID_API_KEY, UnauthenticatedError } from '../errors';
import { traced } from '../tracing';
import { parseInput } from '../validation';
import { argsClassOf, graphqlArgsReader } from './graphql-args';
import { runIdempotently, takesIdempotencyKey } from './idempotency';
import { withKeyHelp } from './key-help';
import type { AuthenticatedContext, KeyScope, RequestContext } from './request-context';

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
  /** `read`: a read, which read-only keys may run too; by default an operation needs a full key. */
  scope?: KeyScope;
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

/**
 * A resolver's @Operation method as a route row names it: `RewardsResolver.prototype.rewardBadge`.
 * Jump-to-definition goes from the row to the method, and a method the resolver lacks fails the
 * typecheck.
 */
export type OperationReference = (...args: never[]) => Promise<unknown>;

/** An @Operation as registered: its definition, and its method as declared. */
interface RegisteredOperation {
  resolverClass: ClassType;
  /** The method's name: its GraphQL root field and its REST path's operationId. */
  name: string;
  definition: OperationDefinition;
  declared: DeclaredMethod;
  /** GraphQL's arguments read as REST's input (`null` is absent, digits parameters are digits). */
  readArgs: (args: Record<string, unknown>) => Record<string, unknown>;
}

/** The operations of each resolver class, by method name. */
const operationsByClass = new WeakMap<object, Map<string, RegisteredOperation>>();
/** The operations by the method their resolver's prototype holds (what a route row refers to). */
const operationsByReference = new WeakMap<OperationReference, RegisteredOperation>();

function registeredOperation(resolverClass: object, method: string): RegisteredOperation {
  const registered = operationsByClass.get(resolverClass)?.get(method);
  if (!registered) throw new Error(`${(resolverClass as ClassType).name}.${method} is not an @Operation`);
  return registered;
}

function referencedOperation(reference: OperationReference): RegisteredOperation {
  const registered = operationsByReference.get(reference);
  if (!registered) throw new Error(`${reference.name || 'a route'} refers to no @Operation method`);
  return registered;
}

/** The operation a route row refers to: its resolver class, method name and definition. */
export function operationReferencedBy(reference: OperationReference): {
  resolverClass: ClassType;
  name: string;
  definition: OperationDefinition;
} {
  const { resolverClass, name, definition } = referencedOperation(reference);
  return { resolverClass, name, definition };
}

/** Every @Operation of a resolver class, by method name. */
export function operationsOf(resolverClass: object): ReadonlyMap<string, OperationDefinition> {
  const registered = operationsByClass.get(resolverClass) ?? new Map<string, RegisteredOperation>();
  return new Map([...registered].map(([method, { definition }]) => [method, definition]));
}

/** What an operation called without a valid key answers (REST refuses such requests before). */
const MISSING_OR_INVALID_KEY = 'Missing or invalid API key: send it in the X-API-KEY header';

/** 403 on every operation but the reads (`scope: 'read'`) when the key is read-only. */
export const READ_ONLY_KEY = defineFailure({
  status: 403,
  codes: ['forbidden'],
  description:
    '`This API key is read-only: …`: the key was issued with `scope: "read"`, which runs the reads only (profiles, leaderboards, balances, transactions, keys)',
});

class ReadOnlyKeyError extends READ_ONLY_KEY.Error {
  constructor() {
    super('This API key is read-only: it runs reads only; use a key with the full scope');
  }
}

/**
 * An operation's input, validated, once the key check passed (unless the operation is public) and
 * the key's scope allows the operation.
 */
export function checkedInput<S extends z.ZodTypeAny>(
  definition: { input: S; public?: boolean; scope?: KeyScope },
  raw: unknown,
  ctx: RequestContext,
): z.output<S> {
  if (!definition.public) {
    if (!ctx.account) {
      const why = ctx.keyRefusal ? `${ctx.keyRefusal}: send a live key in the X-API-KEY header` : null;
      // A missing or unreadable key also says how to get one (an expired or revoked key's holder knows).
      if (why && ctx.keyRefusal !== INVALID_API_KEY) throw new UnauthenticatedError(why);
      throw new UnauthenticatedError(withKeyHelp(why ?? MISSING_OR_INVALID_KEY, !!ctx.sentAuthorization));
    }
    if (ctx.account.scope === 'read' && definition.scope !== 'read') throw new ReadOnlyKeyError();
  }
  return parseInput(definition.input, raw);
}

/**
 * How a request reaches its resolver method, REST and GraphQL alike. A route row names the method
 * (`operation: RewardsResolver.prototype.rewardBadge`); at start-up REST binds that reference to the
 * module's one resolver instance (operationRunner, mounted by src/http/rest.ts), and GraphQL binds
 * each root field to it the same way (operationFieldResolver, set on the schema by
 * src/fast-paths/). Every request then ends here: the key check (unless the operation is
 * public), the raw input validated with the operation's zod schema, and the method as written in
 * the resolver class, run on that instance; once per Idempotency-Key when the request sent one
 * (an account's mutations: src/operations/idempotency.ts).
 */
function runOperation(
  { definition, declared, name }: RegisteredOperation,
  resolver: object,
  raw: unknown,
  ctx: RequestContext,
  /** What an Idempotency-Key is scoped to besides the account: the operation (REST) or the field (GraphQL). */
  endpoint = name,
): Promise<unknown> {
  const input = checkedInput(definition, raw, ctx);
  const run = () =>
    traced(`operation ${declared.name}`, { 'laurel.request_id': ctx.requestId }, () =>
      Reflect.apply(declared, resolver, [input, ctx]),
    );
  const idempotency = ctx.idempotency;
  if (!idempotency || !ctx.account || !takesIdempotencyKey(definition)) return run();
  return runIdempotently(
    idempotency,
    { account: ctx.account.address, operation: endpoint },
    input,
    run,
    ctx.log,
  );
}

/** Runs one operation of a resolver instance with a request's raw input (the key check, validation, the method). */
export type OperationRunner = (raw: unknown, ctx: RequestContext) => Promise<unknown>;

/**
 * The runner of the operation `reference` names, on `resolver`: what a REST route mounts. Throws at
 * start-up if the reference is not an @Operation of the resolver's class.
 */
export function operationRunner(resolver: object, reference: OperationReference): OperationRunner {
  const registered = referencedOperation(reference);
  if (registered.resolverClass !== resolver.constructor) {
    throw new Error(
      `${registered.resolverClass.name}.${registered.name} is not an operation of ${resolver.constructor.name}`,
    );
  }
  return (raw, ctx) => runOperation(registered, resolver, raw, ctx);
}

/**
 * An operation's GraphQL root field resolver on a resolver instance: GraphQL's arguments read as
 * REST's input, then the same run as REST's (see runOperation). Set on the schema by
 * src/fast-paths/operation-resolvers.ts.
 */
export function operationFieldResolver(
  resolver: object,
  method: string,
): (
  root: unknown,
  args: Record<string, unknown>,
  ctx: RequestContext,
  info: { path: { key: string | number } },
) => Promise<unknown> {
  const registered = registeredOperation(resolver.constructor, method);
  return (_root, args, ctx, info) =>
    runOperation(
      registered,
      resolver,
      registered.readArgs(args),
      ctx,
      graphqlEndpoint(method, info.path.key),
    );
}

/**
 * A GraphQL field as an Idempotency-Key's scope: `graphql rewardXP`, or `graphql a: rewardXP` under
 * an alias. Each mutation field of a document is its own request; GraphQL's input (exact decimal
 * strings) is not REST's (JSON numbers), so the two transports do not share a key.
 */
function graphqlEndpoint(method: string, responseKey: string | number): string {
  return responseKey === method ? `graphql ${method}` : `graphql ${responseKey}: ${method}`;
}

/** The input of an operation without fields: an empty object, so every method has the same shape. */
const noArgs = createParameterDecorator(() => ({}));

/**
 * Declares a resolver method as one operation of the API, from one definition: its GraphQL
 * arguments are derived from `input` (types, optionality, descriptions), every call is validated
 * with `input` before the method runs, and operations need an API key unless `public` (the method
 * then receives an AuthenticatedContext). The method must take `(input: z.output<typeof input>,
 * ctx)`: TypeScript rejects any other signature. REST routes run the same method the same way
 * (operationRunner). The method on the prototype becomes that run, with GraphQL's arguments: a
 * plain wrapper rather than type-graphql middlewares, which cost two async dispatches per call.
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
    const resolverClass = prototype.constructor as ClassType;
    const registered: RegisteredOperation = {
      resolverClass,
      name: method,
      definition: definition as OperationDefinition,
      declared: descriptor.value as unknown as DeclaredMethod,
      readArgs: graphqlArgsReader(definition.input),
    };
    const runWithArgs = function (this: object, args: Record<string, unknown>, ctx: RequestContext) {
      return runOperation(registered, this, registered.readArgs(args), ctx);
    };
    descriptor.value = runWithArgs as unknown as M;
    operationsByReference.set(runWithArgs, registered);
    const declare = definition.kind === 'query' ? Query : Mutation;
    declare(() => definition.output, { description: definition.description })(prototype, method, descriptor);

    const operations = operationsByClass.get(resolverClass) ?? new Map<string, RegisteredOperation>();
    operations.set(method, registered);
    operationsByClass.set(resolverClass, operations);
  };
}
