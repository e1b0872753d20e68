import {
  ApolloServer,
  HeaderMap,
  type ApolloServerPlugin,
  type GraphQLRequestListener,
} from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import type { Server } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { answerGraphQL, compiledExecutionGateway, inTurn } from '../fast-paths';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import type { RequestContext, RequestAuthenticator } from '../operations/request-context';
import type { ClientBundle } from './client-bundle';
import { formatGraphQLError } from './format-error';
import { GRAPHQL_LIMITS, graphqlArmor, requestCostPlugin } from './limits';
import { operationLogPlugin } from './operation-log';
import { playgroundAssets, playgroundPage } from './playground';
import { serveSubscriptions, type SubscriptionBounds } from './subscriptions';

export interface GraphQLEndpointOptions {
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** Answers a request whose body could not be read, before Apollo sees it; others go on. */
  refuseUnreadableBody: RequestHandler;
  /** Puts the account of an optional X-API-KEY on the request's context (a wrong key is left out). */
  authenticate: RequestHandler;
  /** The request's context, as the HTTP layer made it. */
  contextOf: (res: Parameters<RequestHandler>[1]) => RequestContext;
  /** Subscriptions over WebSocket on the same path: the HTTP server whose upgrades carry them. */
  subscriptions?: SubscriptionBounds & { server: Server; log: Logger; metrics?: LaurelMetrics };
  /** The client's browser bundle, which the Playground's "Sign in with a wallet" loads. */
  clientBundle: ClientBundle;
}

export interface GraphQLEndpoint {
  /** Ends every subscription (close code 1001) and refuses new ones; idempotent. */
  closeSubscriptions(): Promise<void>;
  /** Stops Apollo (its drain closes the subscriptions first). */
  stop(): Promise<void>;
}

/**
 * Refuses a subscription sent over HTTP with 400 BAD_REQUEST, before it is charged: graphql-js
 * would run its field's resolver without the event it maps. (Apollo answers a GET of anything but a
 * query with 405 itself.)
 */
function subscriptionsOverWebSocketOnly(): ApolloServerPlugin<RequestContext> {
  const listener: GraphQLRequestListener<RequestContext> = {
    async didResolveOperation({ operation }) {
      if (operation?.operation !== 'subscription') return;
      throw new GraphQLError(
        'Subscriptions run over WebSocket at /graphql (graphql-ws, protocol graphql-transport-ws), not over HTTP',
        { extensions: { code: 'BAD_REQUEST', http: { status: 400, headers: new HeaderMap() } } },
      );
    },
  };
  return { requestDidStart: async () => listener };
}

/**
 * GraphQL at /graphql (Apollo Server, operations compiled by graphql-jit), subscriptions on the
 * same path over WebSocket (graphql-ws), and the Playground for browsers. The key is optional at
 * the HTTP level; operations that need it answer UNAUTHENTICATED.
 */
export async function mountGraphQL(app: Express, options: GraphQLEndpointOptions): Promise<GraphQLEndpoint> {
  const armor = graphqlArmor();
  const subscriptions = options.subscriptions
    ? serveSubscriptions({
        ...options.subscriptions,
        path: '/graphql',
        schema: options.schema,
        authenticator: options.authenticator,
        validationRules: armor.validationRules,
      })
    : null;
  const closeSubscriptions = async () => subscriptions?.close();
  const apollo = new ApolloServer<RequestContext>({
    gateway: compiledExecutionGateway(options.schema),
    introspection: true,
    formatError: formatGraphQLError,
    validationRules: armor.validationRules,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    allowBatchedHttpRequests: false,
    plugins: [
      ...armor.plugins,
      subscriptionsOverWebSocketOnly(),
      requestCostPlugin(options.authenticator),
      operationLogPlugin(),
      ApolloServerPluginLandingPageDisabled(),
      // Answers carry Cache-Control: no-store; Apollo's cache-control plugin would otherwise wrap
      // every field's resolver to compute a policy nobody reads.
      ApolloServerPluginCacheControlDisabled(),
      // Nothing is reported to Apollo's cloud (an APOLLO_KEY in the environment would otherwise
      // turn usage reporting on), and Laurel is no federated subgraph: none of their per-request hooks.
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      // Apollo's documented pattern for a WebSocket server beside it: drained when Apollo stops.
      { serverWillStart: async () => ({ drainServer: closeSubscriptions }) },
    ],
    // No stack traces or file paths in answers, whatever NODE_ENV says.
    includeStacktraceInErrorResponses: false,
    // Laurel stops Apollo itself, in order; Apollo's own SIGINT/SIGTERM handlers would race that.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  app.use('/graphql/assets', playgroundAssets(options.clientBundle));
  const playground: RequestHandler = (req, res, next) => {
    if (
      req.method === 'GET' &&
      req.path === '/' &&
      req.query.query === undefined &&
      req.accepts(['application/json', 'text/html']) === 'text/html'
    ) {
      res.type('html').send(playgroundPage('/graphql', '/graphql/assets', options.clientBundle.problem));
      return;
    }
    next();
  };
  app.use(
    '/graphql',
    inTurn(
      options.refuseUnreadableBody,
      playground,
      options.authenticate,
      answerGraphQL(apollo, options.contextOf),
    ),
  );
  return { closeSubscriptions, stop: () => apollo.stop() };
}
