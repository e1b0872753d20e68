import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import { databaseUnavailableReason } from '../db/availability';
import { AppError, DatabaseUnavailableError } from '../errors';
import { loadClientBundle, type ClientBundle } from '../graphql/client-bundle';
import { graphqlErrorBody } from '../graphql/format-error';
import { mountGraphQL, type GraphQLEndpoint } from '../graphql/graphql-server';
import type { SubscriptionBounds } from '../graphql/subscriptions';
import { ThrottledLog, type Logger } from '../logger';
import { statusClass, type LaurelMetrics } from '../metrics';
import { renderInternalError, STATUS_FAILED_BODY } from '../operations/error-shapes';
import type { IdempotencyStore, IdempotentRequest } from '../operations/idempotency';
import type { RequestAuthenticator, RequestContext, RequestOrigin } from '../operations/request-context';
import type { ApiModule } from '../operations/routes';
import { authenticateRequests } from './authenticate';
import { docsAssets, docsPage } from './docs-page';
import { landingLinks, landingPage } from './landing-page';
import { metricsEndpoint } from './metrics-endpoint';
import { clientErrorOf, readJsonBody } from './request-reading';
import { failureOf, sendFailure } from '../fast-paths/answers';
import { dispatchRoutes, RouteTable, securityHeaders } from '../fast-paths';
import { failureFor, moduleRoutes, requestContext, sendError, unreadableBodyOf } from './rest';

export const API_PREFIXES = ['/v1', '/api/v1'] as const;

/** The API a process with the `api` role serves: REST, GraphQL and the API reference. */
export interface ApiSurfaceOptions {
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** Where the answers of requests sent with an Idempotency-Key are kept (absent: the header is not honoured). */
  idempotency?: IdempotencyStore;
  /** Every module's resolver and REST paths: {auth_url} ones at the root, {base_url} ones under /v1 and /api/v1. */
  modules: readonly ApiModule[];
  /**
   * Builds the OpenAPI document served at /openapi.json and rendered at /docs: called on the first
   * request for it, not at start, whose CPU it would otherwise dominate.
   */
  openApiDocument: () => object;
  /** GraphQL subscriptions over WebSocket at /graphql: upgrades of this HTTP server. */
  subscriptions?: SubscriptionBounds & { server: Server };
}

export interface HttpAppOptions {
  log: Logger;
  /** Express `trust proxy` (TRUST_PROXY): whose X-Forwarded-For gives the client address. */
  trustProxy?: string;
  /** Absent (no `api` role): the process answers /health and /ready only. */
  api?: ApiSurfaceOptions;
  /** Recorded for every request; absent: METRICS=off. */
  metrics?: LaurelMetrics;
  /** /metrics on this app (METRICS_PORT unset): with the token, or for loopback peers not behind a proxy. */
  metricsHere?: { token?: string; trustLoopback: boolean };
  /** For GET /ready: `failing` names the dependencies that do not answer (no internal detail). */
  readiness: () => Promise<{
    ready: boolean;
    failing: string[];
    /** What an operator should look at without taking the process out of rotation. */
    warnings?: string[];
    checks: Record<string, unknown>;
  }>;
}

/** The context of one HTTP request. */
class HttpRequestContext implements RequestContext {
  account: RequestContext['account'] = null;
  readonly labels: RequestContext['labels'] = {};
  readonly logFields: Record<string, unknown> = {};
  private requestLog: Logger | undefined;
  private address: string | undefined;
  private idempotentRequest: IdempotentRequest | null | undefined;

  constructor(
    readonly requestId: string,
    private readonly req: express.Request,
    private readonly baseLog: Logger,
    private readonly idempotencyStore: IdempotencyStore | undefined,
  ) {}

  /** The Idempotency-Key header and its store, read on first use (only mutations ask). */
  get idempotency(): IdempotentRequest | null {
    if (this.idempotentRequest !== undefined) return this.idempotentRequest;
    const key = this.req.headers['idempotency-key'];
    const store = this.idempotencyStore;
    return (this.idempotentRequest =
      typeof key === 'string' && store ? { key, store, replayed: false } : null);
  }

  /** The client's address (`trust proxy` applied), worked out on first use: few operations ask. */
  get clientAddress(): string {
    return (this.address ??= this.req.ip ?? 'unknown');
  }

  /** The scheme and host the request came to, as Express reads them (`trust proxy` applied). */
  get origin(): RequestOrigin | null {
    const host = this.req.host;
    return host ? { scheme: this.req.protocol, host } : null;
  }

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
  // Security headers (helmet's, see fast-paths/), the same on every answer, set with the request id below.
  const headers: [string, string][] = [...securityHeaders(), ['Cache-Control', 'no-store']];

  // Request id, context, headers and one log line per request, then the JSON body (one middleware:
  // each layer of Express's router costs every request).
  const readBody = readJsonBody();
  app.use((req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId =
      typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    // Answers carry keys, secrets and per-account data: never stored by a cache (static assets say otherwise).
    for (const [name, value] of headers) res.setHeader(name, value);
    const ctx = new HttpRequestContext(requestId, req, log, options.api?.idempotency);
    res.locals.ctx = ctx;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.statusCode;
      const failure = failureOf(res) ?? (ctx.logFields.error as ReturnType<typeof failureOf>);
      if (metrics) {
        const route = ctx.labels.route ?? (status === 404 ? 'unmatched' : 'other');
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
    readBody(req, res, next);
  });

  // Every route (probes, API reference, {auth_url} and {base_url} paths) in one table, looked up
  // once per request (see src/fast-paths/); GraphQL and static assets come after it.
  const routes = new RouteTable();
  app.use(dispatchRoutes(routes));
  // The client's browser bundle, for the pages' "Sign in with a wallet": read once, and said at
  // start when it is missing or older than its sources (the pages then say so too).
  const clientBundle = options.api ? loadClientBundle() : null;
  if (clientBundle?.problem) log.warn({ problem: clientBundle.problem }, 'sign-in pages unavailable');
  routes.add([
    {
      method: 'get',
      path: '/',
      handle: landingPage(
        landingLinks({
          api: options.api !== undefined,
          metrics: options.metricsHere && metrics ? '/metrics' : null,
        }),
        clientBundle && { bundleUrl: '/graphql/assets/laurel-client.js', problem: clientBundle.problem },
      ),
    },
    { method: 'get', path: '/health', handle: (_req, res) => void res.json({ status: 'ok' }) },
    {
      method: 'get',
      path: '/ready',
      handle: async (_req, res) => {
        const { ready, failing, warnings = [], checks } = await options.readiness();
        const warned = warnings.length > 0 ? { warnings } : {};
        res
          .status(ready ? 200 : 503)
          .json(
            ready
              ? { status: 'ready', ...warned, checks }
              : { status: 'not_ready', failing, ...warned, checks },
          );
      },
    },
    ...(metrics && options.metricsHere
      ? [
          {
            method: 'get' as const,
            path: '/metrics',
            handle: metricsEndpoint(metrics, { open: false, ...options.metricsHere }),
          },
        ]
      : []),
  ]);

  const graphql =
    options.api && clientBundle
      ? await mountApiSurface(app, routes, options.api, { log, metrics }, clientBundle)
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
      sendError(res, STATUS_FAILED_BODY, error);
      return;
    }
    // A database lost or refusing (read-only, a full disk) is a 503 the client may retry, logged with
    // its reason once per interval rather than per request.
    const unavailable = databaseUnavailableReason(error);
    if (unavailable !== null) {
      faults.write(
        'warn',
        'database_unavailable',
        { reason: unavailable },
        'database unavailable: answering 503',
      );
      sendError(res, STATUS_FAILED_BODY, new DatabaseUnavailableError());
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
  routes: RouteTable,
  options: ApiSurfaceOptions,
  observers: { log: Logger; metrics?: LaurelMetrics },
  clientBundle: ClientBundle,
): Promise<GraphQLEndpoint> {
  let openApiDocument: object | undefined;
  routes.add([
    {
      method: 'get',
      path: '/openapi.json',
      handle: (_req, res) => void res.json((openApiDocument ??= options.openApiDocument())),
    },
    {
      method: 'get',
      path: '/docs',
      handle: (_req, res) => void res.type('html').send(docsPage('/openapi.json', '/docs/assets')),
    },
  ]);
  for (const group of moduleRoutes(options.modules, 'auth', { prefixes: [''] })) routes.add(group);

  /** Every {base_url} path needs a valid key, counted against the key's rate limit. */
  const requireApiKey = authenticateRequests(options.authenticator, {
    required: true,
    refuse: (res, error) => sendError(res, STATUS_FAILED_BODY, error),
  });
  for (const group of moduleRoutes(options.modules, 'api', { prefixes: API_PREFIXES, guard: requireApiKey }))
    routes.add(group);
  // GraphQL next (before the layers below, which its requests would otherwise pass through).
  const graphql = await mountGraphQL(app, {
    schema: options.schema,
    authenticator: options.authenticator,
    // A body that is not JSON never reaches Apollo: answered as Apollo answers a request it cannot read.
    refuseUnreadableBody: (_req, res, next) => {
      const unreadable = unreadableBodyOf(res);
      if (!unreadable) return next();
      sendFailure(res, unreadable.httpStatus, graphqlErrorBody(unreadable, 'BAD_REQUEST'), {
        code: unreadable.code,
        message: unreadable.message,
      });
    },
    authenticate: authenticateRequests(options.authenticator, {
      required: false,
      refuse: (res, error) => {
        res.set(error.headers);
        sendFailure(res, error.httpStatus, graphqlErrorBody(error), failureFor(error));
      },
    }),
    contextOf: requestContext,
    subscriptions: options.subscriptions && { ...options.subscriptions, ...observers },
    clientBundle,
  });
  app.use('/docs/assets', docsAssets());
  // Paths under the API's prefixes that are not routes: the key first (401), then 404.
  for (const prefix of API_PREFIXES) app.use(prefix, requireApiKey);
  return graphql;
}
