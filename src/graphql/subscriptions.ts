/**
 * GraphQL subscriptions over WebSocket at /graphql (graphql-ws's `graphql-transport-ws` protocol, on
 * the HTTP server's upgrades). The API key comes in the connection_init payload (`X-API-KEY`) and
 * is checked as an X-API-KEY header is, then again at every subscribe message; a revocation, in
 * any process, closes the key's connections, and so does its expiry. Every subscribe message costs the wallet's request
 * budget what the same operation would over HTTP, refused or not, and is checked against the caps
 * and the budget before its document is parsed. A key holds at most SUBSCRIPTIONS_PER_KEY
 * subscriptions and WEBSOCKETS_PER_KEY connections at once in a process; a connection that does not
 * answer pings is cut. Only subscriptions run here: queries and mutations go over HTTP (Apollo),
 * where their plugins and limits are.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { CloseCode, handleProtocols, makeServer, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config';
import { isDatabaseUnavailable } from '../db/availability';
import { AppError, DatabaseUnavailableError, RateLimitedError, UnauthenticatedError } from '../errors';
import { KeyedCounts } from '../keyed-counts';
import { ThrottledLog, type Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import type {
  AuthenticatedAccount,
  RequestAuthenticator,
  RequestContext,
} from '../operations/request-context';
import { formatSubscriptionError } from './format-error';
import { GRAPHQL_LIMITS } from './limits';
import {
  atExpiry,
  closeSocket,
  GOING_AWAY_CLOSE_CODE,
  TOO_MANY_CLOSE_CODE,
  TRY_AGAIN_LATER_CLOSE_CODE,
  UNAUTHENTICATED_CLOSE_CODE,
} from './subscription-sockets';

/** Largest WebSocket message a client may send (a subscribe message carries one document). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** The connection_init payload field carrying the key: the name of the HTTP header. */
const API_KEY_PARAM = 'X-API-KEY';
/**
 * What one subscribe message costs: a subscription has exactly one root field (GraphQL's
 * SingleFieldSubscriptionsRule), and a root field costs one request (operationCost); an invalid
 * message costs the same, so the cost is known before the document is parsed.
 */
const SUBSCRIBE_COST = 1;
/** The answer to a subscribe message whose connection is closing (nobody receives it). */
const CONNECTION_CLOSED = new GraphQLError('Connection closed');

/** The caps and deadlines of the connections (SUBSCRIPTIONS_PER_KEY, WEBSOCKET_*). */
export type SubscriptionBounds = Omit<Config['subscriptions'], 'pushIntervalMs'>;

export interface SubscriptionServerOptions extends SubscriptionBounds {
  /** The HTTP server whose upgrade requests to `path` become subscriptions. */
  server: Server;
  path: string;
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** graphql-armor's validation rules, as the HTTP endpoint applies them. */
  validationRules: readonly ValidationRule[];
  log: Logger;
  metrics?: LaurelMetrics;
}

export interface SubscriptionServer {
  /** Closes every connection (1001, going away) and stops accepting new ones; later calls wait for the first. */
  close(): Promise<void>;
}

/** A subscription reserved or running on a connection. */
interface Running {
  /** Its root field (a metric label), once its document is known. */
  field: string | null;
  startedAt: number;
  pushes: number;
  log: Logger;
}

/** A WebSocket connection once its key was accepted. */
interface Connection {
  id: string;
  socket: WebSocket;
  /** The key as sent: checked again at every subscribe message. */
  apiKey: string;
  account: AuthenticatedAccount;
  clientAddress: string;
  /** Its subscriptions, by the client's id, from the moment one is reserved. */
  running: Map<string, Running>;
  /** Until when the wallet's budget is known spent: a subscribe message before then closes it. */
  rateLimitedUntil: number;
  /** Stops what closes it when its key expires (an expiring key). */
  stopExpiry?: () => void;
}

type Extra = { socket: WebSocket; request: IncomingMessage };

function apiKeyOf(params: Record<string, unknown> | undefined): string | undefined {
  const entry = Object.entries(params ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key');
  const value = entry?.[1];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The root field a subscription runs (a metric label: one of the schema's few subscription fields). */
function rootFieldOf(document: DocumentNode, operationName: string | null | undefined): string {
  const operation = getOperationAST(document, operationName);
  const field = operation?.selectionSet.selections.find((selection) => selection.kind === 'Field');
  return field && field.kind === 'Field' ? field.name.value : 'unknown';
}

export function serveSubscriptions(options: SubscriptionServerOptions): SubscriptionServer {
  const { authenticator, log, metrics } = options;
  const rules = [...specifiedRules, ...options.validationRules];
  const connections = new WeakMap<WebSocket, Connection>();
  /** Every accepted connection, by its key's id. */
  const byKey = new Map<string, Set<Connection>>();
  const openByKey = new KeyedCounts<string>();
  const openByField = new KeyedCounts<string>();
  metrics?.observe(metrics.subscriptionsOpen, () =>
    [...openByField.entries()].map(([field, value]) => ({ labels: { field }, value })),
  );
  const refuse = (reason: string) => metrics?.subscriptionsRefused.inc({ reason });
  const faults = new ThrottledLog(log);

  const wsServer = new WebSocketServer({
    server: options.server,
    path: options.path,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols,
  });
  // A failed upgrade or socket is the client's; the server itself only fails with its HTTP server.
  wsServer.on('error', (error) => log.warn({ err: error }, 'subscriptions: WebSocket server error'));

  /** Ends a subscription's count (reserved or running); one log line for one that ran (as a request has). */
  const release = (connection: Connection, id: string) => {
    const running = connection.running.get(id);
    if (!running) return;
    connection.running.delete(id);
    openByKey.add(connection.account.apiKeyId, -1);
    if (running.field === null) return;
    openByField.add(running.field, -1);
    running.log.info(
      { field: running.field, pushes: running.pushes, durationMs: Date.now() - running.startedAt },
      'subscription',
    );
  };

  /** Closes every connection of a revoked key; each was refusing its subscribe messages already. */
  const stopRevocations = authenticator.watchRevocations({
    keys: () => byKey.keys(),
    revoked: (apiKeyId) => {
      for (const connection of byKey.get(apiKeyId) ?? []) {
        void closeSocket(connection.socket, UNAUTHENTICATED_CLOSE_CODE, 'API key revoked');
      }
    },
  });

  /** The key check of a connection or subscribe message failed: the connection is closed. */
  const closeRefused = (socket: WebSocket, error: unknown) => {
    if (error instanceof AppError) {
      refuse('unauthenticated');
      void closeSocket(socket, UNAUTHENTICATED_CLOSE_CODE, error.message);
    } else if (isDatabaseUnavailable(error)) {
      void closeSocket(socket, TRY_AGAIN_LATER_CLOSE_CODE, new DatabaseUnavailableError().message);
    } else {
      log.error({ err: error }, 'subscriptions: cannot check a key');
      void closeSocket(socket, CloseCode.InternalServerError, 'Internal server error');
    }
  };

  /** Spends one request of the wallet's budget; refused, the connection learns until when. */
  const charge = async (connection: Connection): Promise<void> => {
    try {
      await authenticator.countRequest(connection.account, SUBSCRIBE_COST);
    } catch (error) {
      if (error instanceof RateLimitedError) {
        connection.rateLimitedUntil = Date.now() + error.retryAfterSeconds * 1000;
      }
      throw error;
    }
  };

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    schema: options.schema,
    connectionInitWaitTimeout: options.initTimeoutMs,
    onConnect: async (ctx) => {
      const { socket, request } = ctx.extra;
      let account: AuthenticatedAccount;
      let apiKey: string | undefined;
      try {
        apiKey = apiKeyOf(ctx.connectionParams);
        if (!apiKey) {
          throw new UnauthenticatedError(
            `Missing API key: send it in the connection_init payload as ${API_KEY_PARAM}`,
          );
        }
        account = await authenticator.authenticate(apiKey);
      } catch (error) {
        closeRefused(socket, error);
        // graphql-ws's own close (4403) comes after ours and is ignored.
        return false;
      }
      // Gone while its key was checked: its close was handled already, it would never be released.
      if (socket.readyState !== socket.OPEN) return false;
      // Counted with no wait after the check: a burst of connections cannot pass the cap together.
      const held = byKey.get(account.apiKeyId) ?? new Set<Connection>();
      if (held.size >= options.socketsPerKey) {
        refuse('too_many_websockets');
        void closeSocket(
          socket,
          TOO_MANY_CLOSE_CODE,
          `Too many WebSockets: this API key holds ${options.socketsPerKey} open here (WEBSOCKETS_PER_KEY)`,
        );
        return false;
      }
      const connection: Connection = {
        id: randomUUID(),
        socket,
        apiKey,
        account,
        clientAddress: request.socket.remoteAddress ?? 'unknown',
        running: new Map(),
        rateLimitedUntil: 0,
      };
      held.add(connection);
      byKey.set(account.apiKeyId, held);
      connections.set(socket, connection);
      if (account.expiresAt) {
        connection.stopExpiry = atExpiry(account.expiresAt, () => {
          void closeSocket(socket, UNAUTHENTICATED_CLOSE_CODE, 'API key expired');
        });
      }
      return true;
    },
    onSubscribe: async (ctx, id, payload: SubscribePayload) => {
      const { socket } = ctx.extra;
      const connection = connections.get(socket)!;
      const { account } = connection;
      // Cheap refusals first: nothing parsed, nothing awaited.
      if (socket.readyState !== socket.OPEN) return [CONNECTION_CLOSED];
      const retryAfterMs = connection.rateLimitedUntil - Date.now();
      if (retryAfterMs > 0) {
        refuse('rate_limited');
        const error = new RateLimitedError(Math.ceil(retryAfterMs / 1000), 'wallet');
        void closeSocket(
          socket,
          TOO_MANY_CLOSE_CODE,
          `Too many requests: retry after ${error.retryAfterSeconds} s`,
        );
        return [refusal(error)];
      }
      // The slot is reserved before anything is awaited: a burst of subscribe messages (on one
      // connection or several of the key) cannot pass the cap together.
      const overCap = openByKey.get(account.apiKeyId) >= options.perKey;
      if (!overCap) {
        openByKey.add(account.apiKeyId, 1);
        connection.running.set(id, {
          field: null,
          startedAt: Date.now(),
          pushes: 0,
          log: log.child({ connection: connection.id, subscription: id }),
        });
      }
      const refused = (errors: readonly GraphQLError[]) => {
        release(connection, id);
        return errors;
      };
      try {
        // The key again (remembered for a second at most, forgotten at its revocation).
        await authenticator.authenticate(connection.apiKey);
      } catch (error) {
        // A refused key ends the connection; a key that cannot be checked now, this subscription.
        if (error instanceof AppError) closeRefused(socket, error);
        return refused([refusal(isDatabaseUnavailable(error) ? new DatabaseUnavailableError() : error)]);
      }
      try {
        await charge(connection);
      } catch (error) {
        if (error instanceof AppError) refuse(error.code);
        return refused([refusal(isDatabaseUnavailable(error) ? new DatabaseUnavailableError() : error)]);
      }
      if (overCap) {
        refuse('too_many_subscriptions');
        const message = `Too many subscriptions: this API key holds ${options.perKey} open here (SUBSCRIPTIONS_PER_KEY); complete one first`;
        return [refusal(new AppError('too_many_subscriptions', message, 429))];
      }
      // Ended meanwhile (the connection closed).
      const running = connection.running.get(id);
      if (!running) return [CONNECTION_CLOSED];
      let document: DocumentNode;
      try {
        document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
      } catch (error) {
        refuse('invalid');
        return refused([withCode(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')]);
      }
      const invalid = validate(options.schema, document, rules);
      if (invalid.length > 0) {
        refuse('invalid');
        return refused(invalid.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED')));
      }
      const operation = getOperationAST(document, payload.operationName);
      if (!operation) {
        refuse('invalid');
        return refused([withCode(new GraphQLError('Unable to identify the operation'), 'BAD_REQUEST')]);
      }
      if (operation.operation !== 'subscription') {
        refuse('invalid');
        return refused([
          withCode(
            new GraphQLError(
              `Only subscriptions run over WebSocket: send ${operation.operation === 'query' ? 'queries' : 'mutations'} to POST /graphql`,
            ),
            'BAD_REQUEST',
          ),
        ]);
      }
      // Variables coerced before the subscription starts, so that a wrong one is refused as over
      // HTTP (BAD_USER_INPUT), not ended as the stream's error.
      const coerced = getVariableValues(
        options.schema,
        operation.variableDefinitions ?? [],
        payload.variables ?? {},
        { maxErrors: 20 },
      );
      if (coerced.errors) {
        refuse('invalid');
        return refused(coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT')));
      }
      const field = rootFieldOf(document, payload.operationName);
      running.field = field;
      openByField.add(field, 1);
      const context: RequestContext = {
        requestId: `${connection.id}:${id}`,
        log: running.log,
        account,
        clientAddress: connection.clientAddress,
        logFields: {},
        labels: { route: `/graphql subscription ${field}` },
      };
      const args: ExecutionArgs = {
        schema: options.schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue: context,
      };
      return args;
    },
    onNext: (ctx, id, _payload, _args, result) => {
      const running = connections.get(ctx.extra.socket)?.running.get(id);
      if (running?.field) {
        running.pushes += 1;
        metrics?.subscriptionPushes.inc({ field: running.field });
      }
      if (!result.errors) return undefined;
      return { ...result, errors: result.errors.map((error) => formatSubscriptionError(error)) };
    },
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatSubscriptionError(error)),
    onComplete: (ctx, id) => {
      const connection = connections.get(ctx.extra.socket);
      if (connection) release(connection, id);
    },
    onClose: (ctx) => {
      const connection = connections.get(ctx.extra.socket);
      if (!connection) return;
      connection.stopExpiry?.();
      for (const id of [...connection.running.keys()]) release(connection, id);
      const held = byKey.get(connection.account.apiKeyId);
      held?.delete(connection);
      if (held?.size === 0) byKey.delete(connection.account.apiKeyId);
    },
  });

  // graphql-ws's transport for `ws` (what its useServer does), with Laurel's heartbeat and logger,
  // and a message it closes the connection for (malformed: 4400) charged as a refused subscribe.
  const answered = new WeakSet<WebSocket>();
  wsServer.on('connection', (socket, request) => {
    answered.add(socket);
    socket.on('pong', () => answered.add(socket));
    // An oversized or broken frame: ws closes the socket itself (1009, 1002) after this.
    socket.on('error', (error) => log.debug({ err: error }, 'subscriptions: socket error'));
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => {
          const connection = connections.get(socket);
          if (code === CloseCode.BadRequest && connection) {
            refuse('invalid');
            charge(connection).catch(() => undefined);
          }
          return closeSocket(socket, code ?? CloseCode.InternalServerError, reason ?? '');
        },
        onMessage: (handle) =>
          socket.on('message', (data) => {
            // graphql-ws throws for a well-formed message a client must not send (`next`):
            // throttled, as clients choose how often.
            handle(String(data)).catch((error: unknown) => {
              faults.write(
                'error',
                'subscription_message',
                { err: error },
                'subscriptions: cannot handle a message',
              );
              void closeSocket(socket, CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      closed(code, String(reason)).catch((error: unknown) =>
        log.error({ err: error }, 'subscriptions: cannot end a connection'),
      );
    });
  });
  // ws's heartbeat: a connection that did not answer the last ping by the next one is cut (a
  // client gone without a word, or one that holds a socket and never answers).
  const heartbeat = setInterval(() => {
    for (const socket of wsServer.clients) {
      if (!answered.has(socket)) {
        socket.terminate();
        continue;
      }
      answered.delete(socket);
      socket.ping();
    }
  }, options.pingIntervalMs);
  heartbeat.unref();

  let closing: Promise<void> | null = null;
  return {
    close: () =>
      (closing ??= (async () => {
        clearInterval(heartbeat);
        stopRevocations();
        const clients = [...wsServer.clients];
        const closed = clients.map((client) =>
          closeSocket(client, GOING_AWAY_CLOSE_CODE, 'Server shutting down'),
        );
        await new Promise<void>((resolve) => wsServer.close(() => resolve()));
        await Promise.all(closed);
      })()),
  };
}

/** A GraphQL error with the `extensions.code` Apollo gives the same failure over HTTP. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, extensions: { ...error.extensions, code } });
}

/** A refusal (AppError) as graphql-ws sends errors: the formatter gives it its code and details. */
function refusal(error: unknown): GraphQLError {
  const formatted: GraphQLFormattedError = formatSubscriptionError(error);
  return new GraphQLError(formatted.message, { extensions: formatted.extensions });
}
