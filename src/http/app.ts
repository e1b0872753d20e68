import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import helmet from 'helmet';
import { isDatabaseUnavailable } from '../db/availability';
import { AppError, DatabaseUnavailableError } from '../errors';
import { graphqlErrorBody } from '../graphql/format-error';
import { mountGraphQL, type GraphQLEndpoint } from '../graphql/graphql-server';
import { ThrottledLog, type Logger } from '../logger';
import { statusClass, type LaurelMetrics } from '../metrics';
import { renderInternalError, SHAPE_A } from '../operations/error-shapes';
import type { RequestAuthenticator, RequestContext } from '../operations/request-context';
import type { ApiModule } from '../operations/routes';
import { authenticateRequests } from './authenticate';
import { docsAssets, docsPage } from './docs-page';
import { landingLinks, landingPage } from './landing-page';
import { metricsEndpoint } from './metrics-endpoint';
import { clientErrorOf, readJsonBody } from './request-reading';
import {
  answerOtherMethods,
  failureOf,
  mountModuleRoutes,
  noteRoute,
  requestContext,
  routeLabels,
  sendError,
  sendFailure,
  unreadableBodyOf,
} from './rest';

export const API_PREFIXES = ['/v1', '/api/v1'] as const;

/** The API a process with the `api` role serves: REST, GraphQL and the API reference. */
export interface ApiSurfaceOptions {
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** Every module's resolver and REST paths: {auth_url} ones at the root, {base_url} ones under /v1 and /api/v1. */
  modules: readonly ApiModule[];
  /** The OpenAPI document, served at /openapi.json and rendered at /docs. */
  openApiDocument: object;
  /** GraphQL subscriptions over WebSocket at /graphql: upgrades of this HTTP server. */
  subscriptions?: { server: Server; perKey: number };
}

export interface HttpAppOptions {
  log: Logger;
  /** Express `trust proxy` (TRUST_PROXY): whose X-Forwarded-For gives the client address. */
  trustProxy?: string;
  /** Absent (no `api` role): the process answers /health and /ready only. */
  api?: ApiSurfaceOptions;
  /** Recorded for every request; absent: METRICS=off. */
  metrics?: LaurelMetrics;
  /** /metrics on this app (METRICS_PORT unset), for loopback peers or with the token. */
  metricsHere?: { token?: string };
  /** For GET /ready: `failing` names the dependencies that do not answer (no internal detail). */
  readiness: () => Promise<{ ready: boolean; failing: string[]; checks: Record<string, unknown> }>;
}

/** The context of one HTTP request. */
class HttpRequestContext implements RequestContext {
  account: RequestContext['account'] = null;
  route: string | undefined = undefined;
  readonly logFields: Record<string, unknown> = {};
  private requestLog: Logger | undefined;

  constructor(
    readonly requestId: string,
    readonly clientAddress: string,
    private readonly baseLog: Logger,
  ) {}

  /**
   * The request's logger, made on first use: at a level above info most requests never log. A
   * getter on the prototype, so that copies of the context (Apollo hands operations one) do not
   * make it either.
   */
  get log(): Logger {
    return (this.requestLog ??= this.baseLog.child({ requestId: this.requestId }));
  }
}

function trustProxySetting(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

export interface HttpApp {
  app: express.Express;
  /** Ends the GraphQL subscriptions (close code 1001): before the HTTP server closes, which waits for their sockets. */
  closeSubscriptions(): Promise<void>;
  /** Stops Apollo. */
  stop(): Promise<void>;
}

export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const { log, metrics } = options;
  const faults = new ThrottledLog(log);
  const app = express();
  app.disable('x-powered-by');
  // Answers are never cached (Cache-Control: no-store below): no ETag, whose hash costs every answer.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxySetting(options.trustProxy));
  // Security headers; no CSP (JSON answers, and the Playground runs an inline script), but no page
  // of Laurel's may be framed.
  app.use(helmet({ contentSecurityPolicy: false, frameguard: { action: 'deny' } }));

  // Request id, context and one log line per request.
  app.use((req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const ctx = new HttpRequestContext(requestId, req.ip ?? 'unknown', log);
    res.locals.ctx = ctx;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.statusCode;
      const failure = failureOf(res) ?? (ctx.logFields.error as ReturnType<typeof failureOf>);
      if (metrics) {
        const route = ctx.route ?? (status === 404 ? 'unmatched' : 'other');
        metrics.httpRequests.inc({ route, method: req.method, status_class: statusClass(status) });
        metrics.httpDuration.observe({ route, method: req.method }, seconds);
        if (status === 429) metrics.rateLimited.inc({ budget: failure?.budget ?? 'wallet' });
      }
      const level = status >= 500 ? 'warn' : 'info';
      if (!log.isLevelEnabled(level)) return;
      ctx.log[level](
        {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status,
          durationMs: Math.round(seconds * 1e4) / 10,
          ...ctx.logFields,
          // Why it failed: what the client was told (its code and message), never more.
          ...(failure && status >= 400 ? { error: { code: failure.code, message: failure.message } } : {}),
        },
        'request',
      );
    });
    next();
  });

  // Answers carry keys, secrets and per-account data: never stored by a cache (static assets say otherwise).
  app.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use(readJsonBody());

  const probes = express.Router();
  probes.get(
    '/',
    landingPage(
      landingLinks({
        api: options.api !== undefined,
        metrics: options.metricsHere && metrics ? '/metrics' : null,
      }),
    ),
  );
  probes.get('/health', (_req, res) => {
    noteRoute(res, '/health');
    res.json({ status: 'ok' });
  });
  probes.get('/ready', async (_req, res, next) => {
    noteRoute(res, '/ready');
    try {
      const { ready, failing, checks } = await options.readiness();
      res
        .status(ready ? 200 : 503)
        .json(ready ? { status: 'ready', checks } : { status: 'not_ready', failing, checks });
    } catch (error) {
      next(error);
    }
  });
  if (metrics && options.metricsHere)
    probes.get('/metrics', metricsEndpoint(metrics, { open: false, ...options.metricsHere }));
  answerOtherMethods(probes, [
    { method: 'get', path: '/' },
    { method: 'get', path: '/health' },
    { method: 'get', path: '/ready' },
    ...(metrics && options.metricsHere ? [{ method: 'get' as const, path: '/metrics' }] : []),
  ]);
  app.use(probes);

  const graphql = options.api
    ? await mountApiSurface(app, options.api, { log, metrics })
    : { stop: async () => undefined, closeSubscriptions: async () => undefined };
  app.use((req, res) => {
    const error = `Not found: ${req.method} ${req.path}`;
    sendFailure(res, 404, { status: 'failed', error }, { code: 'not_found', message: error });
  });

  const errorHandler: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const ctx = res.locals.ctx as RequestContext | undefined;
    const clientError = clientErrorOf(error);
    if (clientError) {
      const { status, message } = clientError;
      sendFailure(res, status, { status: 'failed', error: message }, { code: 'bad_request', message });
      return;
    }
    if (error instanceof AppError) {
      sendError(res, SHAPE_A, error);
      return;
    }
    // A lost database is a 503 the client may retry, logged once per interval rather than per request.
    if (isDatabaseUnavailable(error)) {
      faults.write('warn', 'database_unavailable', {}, 'database unavailable: answering 503');
      sendError(res, SHAPE_A, new DatabaseUnavailableError());
      return;
    }
    const requestId = ctx?.requestId ?? 'unknown';
    (ctx?.log ?? log).error(
      { err: error, method: req.method, path: req.originalUrl.split('?')[0] },
      'unhandled error',
    );
    const { status, body } = renderInternalError(requestId);
    sendFailure(res, status, body, { code: 'internal', message: 'Internal server error' });
  };
  app.use(errorHandler);

  return { app, stop: graphql.stop, closeSubscriptions: graphql.closeSubscriptions };
}

/** The API itself: the API reference, {auth_url} and {base_url} routes, and GraphQL. */
async function mountApiSurface(
  app: express.Express,
  options: ApiSurfaceOptions,
  observers: { log: Logger; metrics?: LaurelMetrics },
): Promise<GraphQLEndpoint> {
  const reference = express.Router();
  reference.get('/openapi.json', (_req, res) => {
    noteRoute(res, '/openapi.json');
    res.json(options.openApiDocument);
  });
  reference.get('/docs', (_req, res) => {
    noteRoute(res, '/docs');
    res.type('html').send(docsPage('/openapi.json', '/docs/assets'));
  });
  answerOtherMethods(reference, [
    { method: 'get', path: '/openapi.json' },
    { method: 'get', path: '/docs' },
  ]);
  app.use('/docs/assets', docsAssets());
  app.use(reference);

  const root = express.Router();
  mountModuleRoutes(root, options.modules, 'auth');
  app.use(root);

  /** Every {base_url} route needs a valid key, counted against the key's rate limit. */
  const requireApiKey = authenticateRequests(options.authenticator, {
    required: true,
    refuse: (res, error) => sendError(res, SHAPE_A, error),
  });
  const api = express.Router();
  mountModuleRoutes(api, options.modules, 'api');
  const labels = routeLabels(options.modules);
  for (const prefix of API_PREFIXES) app.use(prefix, labels, requireApiKey, api);

  // A body that is not JSON never reaches Apollo: answered as Apollo answers a request it cannot read.
  app.use('/graphql', (_req, res, next) => {
    const unreadable = unreadableBodyOf(res);
    if (!unreadable) return next();
    sendFailure(res, unreadable.httpStatus, graphqlErrorBody(unreadable, 'BAD_REQUEST'), {
      code: unreadable.code,
      message: unreadable.message,
    });
  });
  return mountGraphQL(app, {
    schema: options.schema,
    authenticator: options.authenticator,
    authenticate: authenticateRequests(options.authenticator, {
      required: false,
      refuse: (res, error) => res.set(error.headers).status(error.httpStatus).json(graphqlErrorBody(error)),
    }),
    contextOf: requestContext,
    subscriptions: options.subscriptions && { ...options.subscriptions, ...observers },
  });
}
