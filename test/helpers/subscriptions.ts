import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** How a WebSocket connection ended, as the client saw it. */
export interface Closed {
  code: number;
  reason: string;
}

export interface SubscriptionClient {
  client: Client;
  /** Resolves once Laurel acknowledged the connection (its key accepted). */
  connected: Promise<void>;
  /** Resolves with the close code and reason once the connection is closed. */
  closed: Promise<Closed>;
  dispose(): Promise<void>;
}

/**
 * A graphql-ws client of Laurel's /graphql, as a Node application makes one (the `ws` package as
 * its WebSocket), sending `apiKey` in connection_init; it does not retry, so every close is seen.
 */
export function subscriptionClient(url: string, apiKey?: string): SubscriptionClient {
  let resolveClosed!: (closed: Closed) => void;
  const closed = new Promise<Closed>((resolve) => (resolveClosed = resolve));
  let resolveConnected!: () => void;
  const connected = new Promise<void>((resolve) => (resolveConnected = resolve));
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: apiKey === undefined ? {} : { 'X-API-KEY': apiKey },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: {
      connected: () => resolveConnected(),
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string | Buffer };
        resolveClosed({ code, reason: String(reason) });
      },
    },
  });
  return { client, connected, closed, dispose: () => client.dispose() as Promise<void> };
}

/** What one subscription received. */
export interface Received<T> {
  /** Each push's `data`. */
  values: T[];
  /** Each push's `errors`, and an error that ended it. */
  errors: unknown[];
  completed: boolean;
  /** Ends the subscription (the client sends `complete`). */
  unsubscribe(): void;
}

export function subscribe<T>(
  { client }: SubscriptionClient,
  query: string,
  variables: Record<string, unknown> = {},
): Received<T> {
  const received: Received<T> = {
    values: [],
    errors: [],
    completed: false,
    unsubscribe: () => undefined,
  };
  received.unsubscribe = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) received.errors.push(...result.errors);
        if (result.data) received.values.push(result.data);
      },
      error: (error) => {
        received.errors.push(error);
        received.completed = true;
      },
      complete: () => {
        received.completed = true;
      },
    },
  );
  return received;
}
