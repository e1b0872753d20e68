/**
 * Live operations: GraphQL subscriptions declared like operations (@LiveOperation, one zod input
 * for arguments and validation), each a stream of values read again whenever what they are read
 * from may have changed, and pushed only when they differ from the last push.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Root, Args, Subscription, type ClassType, type PubSub } from 'type-graphql';
import type { z } from 'zod';
import { NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { SingleFlight } from '../single-flight';
import { argsClassOf, graphqlArgsReader } from './graphql-args';
import { checkedInput, type OperationOutput } from './operation';
import type { AuthenticatedContext, KeyScope, RequestContext } from './request-context';

/** Calls `wake` whenever the watched value may have changed; returns what stops watching. */
export type Watch = (wake: () => void) => () => void;

/** Where a live value's changes are heard, and how often it may be read. */
export interface LiveSource {
  watch: Watch;
  /** Shortest time between two reads (and so two pushes); 0: read at every change. */
  minIntervalMs: number;
}

export interface LiveValueOptions<T> extends LiveSource {
  read: () => Promise<T>;
  /**
   * Streams with the same key read the same value (the same arguments, the same caller where the
   * answer depends on it): one read serves every stream that heard the change before it started.
   */
  sharedAs?: string;
  /** What two values are compared by: a value equal to the last pushed one is not pushed. Default: its JSON. */
  identity?: (value: T) => string;
  log: Logger;
}

/** How long a read that failed for a passing reason (database, node) waits before the next try. */
const RETRY_MS = 1_000;

/**
 * Reads in flight by `sharedAs` key. A stream joins a read only when it started after `since`
 * (when this stream heard of its change): a thousand subscribers of one leaderboard page read it
 * once per change.
 */
const sharedReads = new SingleFlight<string, unknown>();

function sharedRead<T>(key: string | undefined, since: number, read: () => Promise<T>): Promise<T> {
  if (key === undefined) return read();
  return sharedReads.run(key, read, (startedAt) => startedAt >= since) as Promise<T>;
}

/**
 * The values of `read()`: the current one first, then each one that differs from the last pushed,
 * read at most once per `minIntervalMs` after a change was heard. A first read that fails ends the
 * stream with its error (the client asked for something that is not there); later, a NotFoundError
 * does too (it is gone, e.g. with a reorganisation), any other failure is retried. An iterator
 * rather than an async generator: `return()` (the client unsubscribed, the socket closed) must end
 * it at once, even while it waits for a change.
 */
export function liveValues<T>(options: LiveValueOptions<T>): AsyncIterableIterator<T> {
  const identity = options.identity ?? ((value: T) => JSON.stringify(value));
  let changed = true;
  let closed = false;
  let lastIdentity: string | undefined;
  /** When the last read began (performance.now()). */
  let lastReadAt = Number.NEGATIVE_INFINITY;
  /** When the latest change was heard (performance.now()): a read that started later includes it. */
  let changedAt = performance.now();
  let wakeUp: (() => void) | null = null;
  const abort = new AbortController();
  const stopWatching = options.watch(() => {
    changedAt = performance.now();
    changed = true;
    wakeUp?.();
  });
  const close = (): IteratorResult<T> => {
    if (!closed) {
      closed = true;
      stopWatching();
      abort.abort();
      wakeUp?.();
    }
    return { done: true, value: undefined };
  };
  const waitForChange = () =>
    new Promise<void>((resolve) => {
      wakeUp = () => {
        wakeUp = null;
        resolve();
      };
    });

  const iterator: AsyncIterableIterator<T> = {
    async next() {
      while (!closed) {
        if (!changed) await waitForChange();
        // Again after each sleep: a timer may fire a little early (libuv counts from the time its
        // loop cached when the sleep began).
        for (;;) {
          const wait = options.minIntervalMs - (performance.now() - lastReadAt);
          if (wait <= 0 || closed) break;
          await sleep(wait, undefined, { signal: abort.signal }).catch(() => undefined);
        }
        if (closed) break;
        changed = false;
        const since = changedAt;
        let value: T;
        try {
          const reading = sharedRead(options.sharedAs, since, options.read);
          // The interval counts from once the read has begun, on the monotonic clock: any time taken
          // as the read starts is no later, so the next read starts a whole interval after it.
          lastReadAt = performance.now();
          value = await reading;
        } catch (error) {
          if (lastIdentity === undefined || error instanceof NotFoundError) {
            close();
            throw error;
          }
          options.log.warn({ err: error }, 'subscription: read failed; retrying');
          await sleep(RETRY_MS, undefined, { signal: abort.signal }).catch(() => undefined);
          changedAt = performance.now();
          changed = true;
          continue;
        }
        if (closed) break;
        const valueIdentity = identity(value);
        if (valueIdentity === lastIdentity) continue;
        lastIdentity = valueIdentity;
        return { done: false, value };
      }
      return { done: true, value: undefined };
    },
    async return() {
      return close();
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

export interface LiveOperationDefinition<S extends z.ZodTypeAny> {
  /** The subscription's input: GraphQL arguments and validation come from it. */
  input: S;
  /** What each push is. */
  output: OperationOutput;
  description: string;
  /** The GraphQL field's name, when it differs from the method's (a query of the same name). */
  name?: string;
  /** `read`: read-only keys may subscribe too; by default a full key is needed. */
  scope?: KeyScope;
}

/** A live operation's method: validated input and an authenticated context in, the stream of values out. */
export type LiveOperationMethod<S extends z.ZodTypeAny> = (
  input: z.output<S>,
  ctx: AuthenticatedContext,
) => AsyncIterable<unknown>;

interface RegisteredLiveOperation {
  resolverClass: ClassType;
  definition: LiveOperationDefinition<z.ZodTypeAny>;
  declared: LiveOperationMethod<z.ZodTypeAny>;
  readArgs: (args: Record<string, unknown>) => Record<string, unknown>;
}

/** Every live operation, by its topic (`Resolver.method`): how the pubSub below finds the method. */
const liveOperations = new Map<string, RegisteredLiveOperation>();

/** What type-graphql hands the pubSub for one subscription: its arguments and context. */
interface LiveSubscriptionRequest {
  args: Record<string, unknown>;
  context: RequestContext;
}

/**
 * Declares a resolver method as a live operation: a GraphQL subscription whose arguments come from
 * `input`, which needs an API key, and whose stream is what the method returns for the validated
 * input. Each pushed value is the subscription's result as it is (its fields resolved as a query's).
 */
export function LiveOperation<S extends z.ZodTypeAny>(definition: LiveOperationDefinition<S>) {
  return <M extends LiveOperationMethod<S>>(
    prototype: object,
    method: string,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    const resolverClass = prototype.constructor as ClassType;
    const topic = `${resolverClass.name}.${method}`;
    const argsClass = argsClassOf(definition.input, `${method[0].toUpperCase()}${method.slice(1)}Args`);
    Root()(prototype, method, 0);
    if (argsClass) Args(() => argsClass)(prototype, method, 1);
    liveOperations.set(topic, {
      resolverClass,
      definition: definition as LiveOperationDefinition<z.ZodTypeAny>,
      declared: descriptor.value as unknown as LiveOperationMethod<z.ZodTypeAny>,
      readArgs: graphqlArgsReader(definition.input),
    });
    // GraphQL resolves each pushed value as the subscription's result.
    descriptor.value = ((value: unknown) => value) as unknown as M;
    Subscription(() => definition.output, {
      name: definition.name,
      description: definition.description,
      topics: topic,
      topicId: ({ args, context }): LiveSubscriptionRequest => ({
        args: args as Record<string, unknown>,
        context: context as RequestContext,
      }),
    })(prototype, method, descriptor);
  };
}

/**
 * The type-graphql pubSub of the schema: a subscription's topic names its live operation, which
 * runs on the resolver instance of its class (the key checked, the input validated) and returns
 * the stream. Nothing is published to it: streams read their values themselves.
 */
export function liveOperationsPubSub(resolverOf: (resolverClass: ClassType) => object): PubSub {
  return {
    publish: (topic) => {
      throw new Error(`live operations are not published to (${topic})`);
    },
    subscribe: (topic, request) => {
      const live = liveOperations.get(topic);
      if (!live) throw new Error(`no live operation ${topic}`);
      const { args, context } = request as LiveSubscriptionRequest;
      const input = checkedInput(live.definition, live.readArgs(args), context);
      // The method as written in the resolver class, run on its instance (as runOperation does).
      return Reflect.apply(live.declared, resolverOf(live.resolverClass), [
        input,
        context as AuthenticatedContext,
      ]);
    },
  };
}
