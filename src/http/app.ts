import { randomUUID } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type ErrorRequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../context';
import { AppError, ValidationError } from '../errors';
import { formatGraphQLError, graphqlErrorBody } from '../graphql/format-error';
import { playgroundAssets, playgroundPage } from '../graphql/playground';
import type { Logger } from '../logger';
import { authenticateRequests, type RequestAuthenticator } from './authenticate';
import { renderInternalError, sendError, SHAPE_A, SHAPE_C } from './error-shapes';
import { requestContext } from './rest';

export const API_PREFIXES = ['/v1', '/api/v1'] as const;

export interface HttpAppOptions {
  log: Logger;
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** Mounts the unversioned {auth_url} routes (`/key/challenge`, `/key/verify`). */
  mountRoot: (router: express.Router) => void;
  /** Mounts the {base_url} routes; served under /v1 and /api/v1. */
  mountApi: (router: express.Router) => void;
  /** For GET /ready. */
  readiness: () => Promise<{ ready: boolean; checks: Record<string, unknown> }>;
}

export async function createHttpApp(
  options: HttpAppOptions,
): Promise<{ app: express.Express; stop(): Promise<void> }> {
  const { log } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  // Request id, context and one log line per request.
  app.use((req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const ctx: RequestContext = { requestId, log: log.child({ requestId }), account: null };
    res.locals.ctx = ctx;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.log.info(
        {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
        },
        'request',
      );
    });
    next();
  });

  app.use(express.json({ limit: '1mb' }));

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res, next) => {
    try {
      const { ready, checks } = await options.readiness();
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
    } catch (error) {
      next(error);
    }
  });

  const root = express.Router();
  options.mountRoot(root);
  app.use(root);

  /** Every {base_url} route needs a valid key, counted against the key's rate limit. */
  const requireApiKey = authenticateRequests(options.authenticator, {
    required: true,
    refuse: (res, error) => sendError(res, SHAPE_A, error),
  });
  const api = express.Router();
  options.mountApi(api);
  for (const prefix of API_PREFIXES) app.use(prefix, requireApiKey, api);

  // GraphQL: the key is optional at the HTTP level; operations that need it answer UNAUTHENTICATED.
  const apollo = new ApolloServer<RequestContext>({
    schema: options.schema,
    introspection: true,
    formatError: formatGraphQLError,
    plugins: [ApolloServerPluginLandingPageDisabled()],
    // Laurel stops Apollo itself, in order; Apollo's own SIGINT/SIGTERM handlers would race that.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  app.use('/graphql/assets', playgroundAssets());
  app.get('/graphql', (req, res, next) => {
    if (req.query.query === undefined && req.accepts(['application/json', 'text/html']) === 'text/html') {
      res.type('html').send(playgroundPage('/graphql', '/graphql/assets'));
      return;
    }
    next();
  });
  app.use(
    '/graphql',
    authenticateRequests(options.authenticator, {
      required: false,
      refuse: (res, error) => res.set(error.headers).status(error.httpStatus).json(graphqlErrorBody(error)),
    }),
    expressMiddleware(apollo, { context: async ({ res }) => requestContext(res) }),
  );

  app.use((req, res) => {
    res.status(404).json({ status: 'failed', error: `Not found: ${req.method} ${req.path}` });
  });

  const errorHandler: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const ctx = res.locals.ctx as RequestContext | undefined;
    const type = (error as { type?: string }).type;
    if (type === 'entity.parse.failed') {
      const malformed = new ValidationError([
        { code: 'invalid_json', path: [], message: `Malformed JSON body: ${(error as Error).message}` },
      ]);
      sendError(res, SHAPE_C, malformed);
      return;
    }
    if (type === 'entity.too.large') {
      res.status(413).json({ status: 'failed', error: 'Request body too large (limit 1 MB)' });
      return;
    }
    if (error instanceof AppError) {
      sendError(res, SHAPE_A, error);
      return;
    }
    const requestId = ctx?.requestId ?? 'unknown';
    (ctx?.log ?? log).error(
      { err: error, method: req.method, path: req.originalUrl.split('?')[0] },
      'unhandled error',
    );
    const { status, body } = renderInternalError(requestId);
    res.status(status).json(body);
  };
  app.use(errorHandler);

  return { app, stop: () => apollo.stop() };
}
