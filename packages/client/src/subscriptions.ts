/**
 * Live reads: Laurel's GraphQL subscriptions over WebSocket (graphql-ws's `graphql-transport-ws`,
 * the protocol Laurel serves at /graphql). The key goes in `connection_init` as `{"X-API-KEY": …}`
 * (browsers send no headers on a WebSocket). A dropped socket or a restarting Laurel is reconnected
 * with backoff, within a bound, and every subscription is sent again (Laurel then pushes the current
 * answer first: nothing is lost). A refused key (4401), a cap or budget refusal (4429) or a protocol
 * error (4400) ends the subscriptions at once with a LaurelSubscriptionError: retrying them cannot
 * succeed. Arguments and results are typed from schema.graphql (./generated/graphql.ts).
 */
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import {
  subscriptionArgumentTypes,
  type SubscriptionArguments,
  type SubscriptionResults,
} from './generated/graphql.js';
import type { Laurel } from './laurel.js';

export type SubscriptionField = keyof SubscriptionResults;

type Element<T> = T extends readonly (infer E)[] ? Element<E> : NonNullable<T>;

/** Which fields to receive: `true` for a value, an object for the fields of a nested object or list. */
export type Selection<T> = {
  [K in keyof T]?: Element<T[K]> extends object ? Selection<Element<T[K]>> : true;
};

/** What a push carries for `selection` of `T`: the selected fields, lists and nulls kept. */
export type Selected<T, S> = T extends null
  ? null
  : T extends readonly (infer E)[]
    ? Selected<E, S>[]
    : { [K in keyof S & keyof T]: S[K] extends true ? T[K] : Selected<T[K], S[K]> };

/** What a subscription of `field` with `selection` pushes. */
export type Pushed<F extends SubscriptionField, S> = Selected<SubscriptionResults[F], S>;

/** How the connection is doing, for a status line or a log. */
export type ConnectionStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; reconnected: boolean }
  | { state: 'closed'; code: number; reason: string };

export interface SubscriptionOptions {
  /**
   * The WebSocket class. Browsers and Node 22+ have a global one (the default); on Node 20 pass the
   * `ws` package's: `import WebSocket from 'ws'` and `{ webSocket: WebSocket }`.
   */
  webSocket?: unknown;
  /**
   * Reconnection: up to `attempts` in a row (default 8; 0: none), waiting `initialDelayMs` (500)
   * doubled at each, at most `maxDelayMs` (15,000), with up to a quarter added at random so clients
   * do not all come back at once. A connection that Laurel acknowledges starts the count again.
   */
  retry?: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /**
   * Ping Laurel this often (default 15,000 ms; 0: never) and reconnect when no pong comes within
   * the same time: a connection gone silent (a dead network path) is noticed, not only a closed one.
   */
  keepAliveMs?: number;
  /** Told each connection attempt, acknowledgement and close. */
  onStatus?(status: ConnectionStatus): void;
}

/** Closes after which reconnecting cannot help (docs/subscriptions.md: Laurel's close codes). */
const FINAL_CLOSES: Record<number, string> = {
  4400: 'Laurel refused a message of this client',
  4401: 'Laurel refused the API key',
  4403: 'Laurel refused the API key',
  4429: 'Laurel refused the connection: too many',
};

/** Why a subscription ended: a refused key, a refusal of its arguments, or Laurel unreachable. */
export class LaurelSubscriptionError extends Error {
  override readonly name = 'LaurelSubscriptionError';
  constructor(
    message: string,
    /** The WebSocket close code when the connection ended it (4401: the key). */
    readonly closeCode?: number,
    /** The GraphQL error code when Laurel refused the subscription (`BAD_USER_INPUT`…). */
    readonly code?: string,
    /** The GraphQL errors as Laurel sent them. */
    readonly errors?: readonly { message: string; extensions?: Record<string, unknown> }[],
  ) {
    super(message);
  }
}

interface CloseLike {
  code: number;
  reason: string;
}
const isClose = (value: unknown): value is CloseLike =>
  typeof value === 'object' && value !== null && 'code' in value && 'reason' in value;

/** `{ a b { c } }` for `{a: true, b: {c: true}}`. */
function selectionText(selection: object): string {
  const fields = Object.entries(selection)
    .filter(([, value]) => value)
    .map(([name, value]) => (value === true ? name : `${name} ${selectionText(value as object)}`));
  if (fields.length === 0) throw new TypeError('a selection names at least one field');
  return `{ ${fields.join(' ')} }`;
}

/** The subscription document for `field` with the arguments given (others left to Laurel's defaults). */
export function subscriptionDocument(field: SubscriptionField, args: object, selection: object): string {
  const types: Record<string, string> = subscriptionArgumentTypes[field];
  const names = Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => {
      if (!types[name]) throw new TypeError(`${field} has no argument ${name}`);
      return name;
    });
  const variables = names.map((name) => `$${name}: ${types[name]}`).join(', ');
  const passed = names.map((name) => `${name}: $${name}`).join(', ');
  return `subscription${names.length ? ` (${variables})` : ''} { ${field}${names.length ? `(${passed})` : ''} ${selectionText(selection)} }`;
}

/** The handlers of one subscription. */
export interface SubscriptionSink<T> {
  next(value: T): void;
  /** Once, when it ends for good (it is not called for a reconnection). */
  error?(error: LaurelSubscriptionError): void;
  /** When Laurel ends it (or `unsubscribe()` did). */
  complete?(): void;
}

/**
 * Subscriptions to one Laurel under its API key (`laurel.apiKey`, read at each connection, so a new
 * sign-in is used by the next reconnection). One WebSocket carries them all; it opens with the
 * first subscription and closes after the last.
 *
 *   const live = new LaurelSubscriptions(laurel, { webSocket: WebSocket }); // Node 20: `ws`
 *   for await (const profile of live.iterate('profileChanged', { chain: 'local' }, { xp_balance: true }))
 *     console.log(profile.xp_balance);
 */
export class LaurelSubscriptions {
  /** `ws(s)://…/graphql`. */
  readonly url: string;
  private readonly client: Client;
  private attempts = 0;
  /** The close or error that ended the last connection. */
  private lastEnd: unknown;

  constructor(
    private readonly laurel: Pick<Laurel, 'url' | 'apiKey'>,
    options: SubscriptionOptions = {},
  ) {
    this.url = `${laurel.url.replace(/^http/, 'ws')}/graphql`;
    const webSocket = options.webSocket ?? (globalThis as { WebSocket?: unknown }).WebSocket;
    if (!webSocket) {
      throw new TypeError(
        "no WebSocket here (Node 20 has none): pass one, e.g. `import WebSocket from 'ws'` and { webSocket: WebSocket }",
      );
    }
    const attempts = options.retry?.attempts ?? 8;
    const initialDelayMs = options.retry?.initialDelayMs ?? 500;
    const maxDelayMs = options.retry?.maxDelayMs ?? 15_000;
    const keepAliveMs = options.keepAliveMs ?? 15_000;
    let pongDue: ReturnType<typeof setTimeout> | undefined;
    this.client = createClient({
      url: this.url,
      webSocketImpl: webSocket,
      // Read at each connection; without a key Laurel closes with 4401 and says how to send one.
      connectionParams: () => (this.laurel.apiKey ? { 'X-API-KEY': this.laurel.apiKey } : {}),
      retryAttempts: attempts,
      retryWait: async (retries) => {
        const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** retries);
        await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay * 0.25));
      },
      // A network error (no Laurel listening yet) is retried as a close is; the final closes are not.
      shouldRetry: (end) => !(isClose(end) && end.code in FINAL_CLOSES),
      keepAlive: keepAliveMs,
      on: {
        connecting: (reconnecting) => {
          this.attempts = reconnecting ? this.attempts + 1 : 0;
          options.onStatus?.({ state: 'connecting', attempt: this.attempts });
        },
        connected: (_socket, _payload, reconnected) => {
          this.attempts = 0;
          options.onStatus?.({ state: 'connected', reconnected });
        },
        closed: (event) => {
          clearTimeout(pongDue);
          this.lastEnd = event;
          if (isClose(event)) options.onStatus?.({ state: 'closed', code: event.code, reason: event.reason });
        },
        error: (error) => {
          this.lastEnd = error;
        },
        // No pong in time: the connection is dead though not closed; drop it, which reconnects.
        ping: (received) => {
          if (!received) pongDue = setTimeout(() => this.client.terminate(), keepAliveMs);
        },
        pong: (received) => {
          if (received) clearTimeout(pongDue);
        },
      },
    });
  }

  /**
   * Subscribes to `field` with `args`, receiving `selection`'s fields; returns what unsubscribes.
   *
   *   live.subscribe('leaderboardChanged', { chain: 'local', app_id }, { user: true, xp_rewarded: true },
   *     { next: (page) => render(page), error: (e) => console.error(e.message) });
   */
  subscribe<F extends SubscriptionField, S extends Selection<Element<SubscriptionResults[F]>>>(
    field: F,
    args: SubscriptionArguments[F],
    selection: S,
    sink: SubscriptionSink<Pushed<F, S>>,
  ): () => void {
    return this.request<Record<F, Pushed<F, S>>>(
      { query: subscriptionDocument(field, args, selection), variables: args as Record<string, unknown> },
      { ...sink, next: (data) => sink.next(data[field]) },
    );
  }

  /** The same pushes as an async iterator: `for await (const page of live.iterate(…))`; `break` unsubscribes. */
  iterate<F extends SubscriptionField, S extends Selection<Element<SubscriptionResults[F]>>>(
    field: F,
    args: SubscriptionArguments[F],
    selection: S,
  ): AsyncIterableIterator<Pushed<F, S>> {
    return iterator((sink) => this.subscribe(field, args, selection, sink));
  }

  /**
   * Any subscription document, for what the typed form does not cover (aliases, fragments): `next`
   * receives the push's `data`.
   */
  request<T>(
    operation: { query: string; variables?: Record<string, unknown> },
    sink: SubscriptionSink<T>,
  ): () => void {
    let ended = false;
    const fail = (error: LaurelSubscriptionError) => {
      if (ended) return;
      ended = true;
      sink.error?.(error);
    };
    if (!this.laurel.apiKey) {
      fail(
        new LaurelSubscriptionError(
          'no API key: sign in first (signIn(laurel, wallet), or `laurel key` on the command line)',
        ),
      );
      return () => undefined;
    }
    return this.client.subscribe<T>(operation, {
      next: (result: FormattedExecutionResult<T>) => {
        if (result.errors?.length) fail(graphqlError(result.errors));
        else if (result.data) sink.next(result.data);
      },
      error: (error) => fail(this.endError(error)),
      complete: () => {
        if (!ended) sink.complete?.();
      },
    });
  }

  /** Closes the connection; the subscriptions end (their `complete` is called). */
  async dispose(): Promise<void> {
    // graphql-ws awaits the connection in progress: one that fails has no socket left to close.
    await Promise.resolve(this.client.dispose()).catch(() => undefined);
  }

  /** What a subscription's end says to the caller. */
  private endError(error: unknown): LaurelSubscriptionError {
    if (Array.isArray(error)) return graphqlError(error as { message: string }[]);
    const end = isClose(error) ? error : isClose(this.lastEnd) ? this.lastEnd : undefined;
    if (end && end.code in FINAL_CLOSES) {
      const what = FINAL_CLOSES[end.code];
      const todo =
        end.code === 4401 || end.code === 4403
          ? ': sign in again for a new key (signIn, or `laurel key`)'
          : '';
      return new LaurelSubscriptionError(
        `${what} (${end.code} ${end.reason || 'no reason'})${todo}`,
        end.code,
      );
    }
    const last = end ? `closed ${end.code}${end.reason ? ` ${end.reason}` : ''}` : 'no connection';
    return new LaurelSubscriptionError(
      `no Laurel answers at ${this.url} after ${this.attempts} reconnection attempts (last: ${last})`,
      end?.code,
    );
  }
}

function graphqlError(
  errors: readonly { message: string; extensions?: Record<string, unknown> }[],
): LaurelSubscriptionError {
  const code = errors.find((error) => typeof error.extensions?.code === 'string')?.extensions?.code as
    string | undefined;
  const message = errors.map((error) => error.message).join('; ');
  return new LaurelSubscriptionError(
    `Laurel refused the subscription${code ? ` (${code})` : ''}: ${message}`,
    undefined,
    code,
    errors,
  );
}

/** An async iterator over a sink-based subscription; it throws the subscription's error. */
function iterator<T>(start: (sink: SubscriptionSink<T>) => () => void): AsyncIterableIterator<T> {
  const pending: T[] = [];
  let failure: LaurelSubscriptionError | undefined;
  let done = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const unsubscribe = start({
    next: (value) => {
      pending.push(value);
      notify();
    },
    error: (error) => {
      failure = error;
      done = true;
      notify();
    },
    complete: () => {
      done = true;
      notify();
    },
  });
  const it: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        if (pending.length) return { value: pending.shift() as T, done: false };
        if (failure) throw failure;
        if (done) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async return() {
      done = true;
      unsubscribe();
      notify();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}
