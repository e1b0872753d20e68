/**
 * GraphQL subscriptions over WebSocket at /graphql (graphql-ws's `graphql-transport-ws` protocol, on
 * the HTTP server's upgrades). The API key comes in the connection_init payload (`X-API-KEY`) and
 * is checked once, as an X-API-KEY header is; each subscription costs the wallet's request budget
 * what the same operation would over HTTP, and a key holds at most SUBSCRIPTIONS_PER_KEY at once in
 * a process. Only subscriptions run here: queries and mutations go over HTTP (Apollo), where their
 * plugins and limits are.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import {
  getOperationAST,
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
import { CloseCode, type Context, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { isDatabaseUnavailable } from '../db/availability';
import { AppError, DatabaseUnavailableError, UnauthenticatedError } from '../errors';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import type {
  AuthenticatedAccount,
  RequestAuthenticator,
  RequestContext,
} from '../operations/request-context';
import { formatSubscriptionError } from './format-error';
import { GRAPHQL_LIMITS, operationCost } from './limits';

/** Largest WebSocket message a client may send (a subscribe message carries one document). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** The connection_init payload field carrying the key: the name of the HTTP header. */
const API_KEY_PARAM = 'X-API-KEY';
/** Closes a connection whose key is missing, unknown or revoked (graphql-ws clients do not retry it). */
const UNAUTHENTICATED_CLOSE_CODE = CloseCode.Unauthorized;
/** Closes a connection whose key cannot be checked now (the database is gone): clients retry. */
const TRY_AGAIN_LATER_CLOSE_CODE = 1013;
/** What every connection is closed with when the process stops (clients reconnect to another). */
const GOING_AWAY_CLOSE_CODE = 1001;
/** How long clients have to answer the closing handshake before their sockets are cut. */
const CLOSE_HANDSHAKE_MS = 1_000;

export interface SubscriptionServerOptions {
  /** The HTTP server whose upgrade requests to `path` become subscriptions. */
  server: Server;
  path: string;
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** Subscriptions one API key may hold open at once in this process. */
  perKey: number;
  /** graphql-armor's validation rules, as the HTTP endpoint applies them. */
  validationRules: readonly ValidationRule[];
  log: Logger;
  metrics?: LaurelMetrics;
}

export interface SubscriptionServer {
  /** Closes every connection (1001, going away) and stops accepting new ones; later calls wait for the first. */
  close(): Promise<void>;
}

/** A subscription running on a connection. */
interface Running {
  /** Its root field (a metric label). */
  field: string;
  startedAt: number;
  pushes: number;
  log: Logger;
}

/** A WebSocket connection once its key was accepted. */
interface Connection {
  id: string;
  account: AuthenticatedAccount;
  clientAddress: string;
  /** Its running subscriptions, by the client's id. */
  running: Map<string, Running>;
}

type Extra = { socket: WebSocket; request: IncomingMessage };
type SubscriptionCtx = Context<Record<string, unknown> | undefined, Extra>;

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
  const connections = new WeakMap<SubscriptionCtx, Connection>();
  const openByKey = new Map<string, number>();
  const openByField = new Map<string, number>();
  const count = (map: Map<string, number>, key: string, by: number) => {
    const value = (map.get(key) ?? 0) + by;
    if (value === 0) map.delete(key);
    else map.set(key, value);
  };
  metrics?.observe(metrics.subscriptionsOpen, () =>
    [...openByField].map(([field, value]) => ({ labels: { field }, value })),
  );
  const refuse = (reason: string) => metrics?.subscriptionsRefused.inc({ reason });

  const wsServer = new WebSocketServer({
    server: options.server,
    path: options.path,
    maxPayload: MAX_MESSAGE_BYTES,
  });
  // A failed upgrade or socket is the client's; the server itself only fails with its HTTP server.
  wsServer.on('error', (error) => log.warn({ err: error }, 'subscriptions: WebSocket server error'));

  /** Ends a running subscription's count, with one log line (as a request has). */
  const release = (connection: Connection, id: string) => {
    const running = connection.running.get(id);
    if (!running) return;
    connection.running.delete(id);
    count(openByKey, connection.account.apiKeyId, -1);
    count(openByField, running.field, -1);
    running.log.info(
      { field: running.field, pushes: running.pushes, durationMs: Date.now() - running.startedAt },
      'subscription',
    );
  };

  const server = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema: options.schema,
      onConnect: async (ctx) => {
        const { socket, request } = ctx.extra;
        try {
          const apiKey = apiKeyOf(ctx.connectionParams);
          if (!apiKey) {
            throw new UnauthenticatedError(
              `Missing API key: send it in the connection_init payload as ${API_KEY_PARAM}`,
            );
          }
          const account = await authenticator.authenticate(apiKey);
          connections.set(ctx, {
            id: randomUUID(),
            account,
            clientAddress: request.socket.remoteAddress ?? 'unknown',
            running: new Map(),
          });
          return true;
        } catch (error) {
          if (error instanceof AppError) {
            refuse('unauthenticated');
            socket.close(UNAUTHENTICATED_CLOSE_CODE, error.message);
          } else if (isDatabaseUnavailable(error)) {
            socket.close(TRY_AGAIN_LATER_CLOSE_CODE, new DatabaseUnavailableError().message);
          } else {
            log.error({ err: error }, 'subscriptions: cannot check a key');
            socket.close(CloseCode.InternalServerError, 'Internal server error');
          }
          // graphql-ws's own close (4403) comes after ours and is ignored.
          return false;
        }
      },
      onSubscribe: async (ctx, id, payload: SubscribePayload) => {
        const connection = connections.get(ctx)!;
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
        } catch (error) {
          refuse('invalid');
          return [withCode(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
        }
        const invalid = validate(options.schema, document, rules);
        if (invalid.length > 0) {
          refuse('invalid');
          return invalid.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED'));
        }
        const operation = getOperationAST(document, payload.operationName);
        if (!operation)
          return [withCode(new GraphQLError('Unable to identify the operation'), 'BAD_REQUEST')];
        if (operation.operation !== 'subscription') {
          refuse('invalid');
          return [
            withCode(
              new GraphQLError(
                `Only subscriptions run over WebSocket: send ${operation.operation === 'query' ? 'queries' : 'mutations'} to POST /graphql`,
              ),
              'BAD_REQUEST',
            ),
          ];
        }
        const { account } = connection;
        if ((openByKey.get(account.apiKeyId) ?? 0) >= options.perKey) {
          refuse('too_many_subscriptions');
          const message = `Too many subscriptions: this API key holds ${options.perKey} open here (SUBSCRIPTIONS_PER_KEY); complete one first`;
          return [refusal(new AppError('too_many_subscriptions', message, 429))];
        }
        try {
          await authenticator.countRequest(account, operationCost(operation, document));
        } catch (error) {
          if (error instanceof AppError) refuse(error.code);
          return [refusal(isDatabaseUnavailable(error) ? new DatabaseUnavailableError() : error)];
        }
        const field = rootFieldOf(document, payload.operationName);
        const subscriptionLog = log.child({ connection: connection.id, subscription: id });
        connection.running.set(id, { field, startedAt: Date.now(), pushes: 0, log: subscriptionLog });
        count(openByKey, account.apiKeyId, 1);
        count(openByField, field, 1);
        const context: RequestContext = {
          requestId: `${connection.id}:${id}`,
          log: subscriptionLog,
          account,
          clientAddress: connection.clientAddress,
          logFields: {},
          route: `/graphql subscription ${field}`,
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
        const running = connections.get(ctx)?.running.get(id);
        if (running) {
          running.pushes += 1;
          metrics?.subscriptionPushes.inc({ field: running.field });
        }
        if (!result.errors) return undefined;
        return { ...result, errors: result.errors.map((error) => formatSubscriptionError(error)) };
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatSubscriptionError(error)),
      onComplete: (ctx, id) => {
        const connection = connections.get(ctx);
        if (connection) release(connection, id);
      },
      onClose: (ctx) => {
        const connection = connections.get(ctx);
        if (connection) for (const id of [...connection.running.keys()]) release(connection, id);
      },
    },
    wsServer,
  );

  let closing: Promise<void> | null = null;
  return {
    close: () =>
      (closing ??= (async () => {
        const clients = [...wsServer.clients];
        const closed = Promise.all(
          clients.map((client) => new Promise((resolve) => client.once('close', resolve))),
        );
        for (const client of clients) client.close(GOING_AWAY_CLOSE_CODE, 'Server shutting down');
        // graphql-ws's own dispose closes clients the same way (ignored now) and the server.
        await server.dispose();
        // Sockets whose clients do not answer the closing handshake in time are cut.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          closed,
          new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_HANDSHAKE_MS))),
        ]);
        clearTimeout(timer);
        for (const client of clients) client.terminate();
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
