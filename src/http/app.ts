import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import helmet from 'helmet';
import { isDatabaseUnavailable } from '../db/availability';
import { AppError, DatabaseUnavailableError, ValidationError } from '../errors';
import { graphqlErrorBody } from '../graphql/format-error';
import { mountGraphQL } from '../graphql/graphql-server';
import { ThrottledLog, type Logger } from '../logger';
import { renderInternalError, SHAPE_A, SHAPE_C } from '../operations/error-shapes';
import type { RequestAuthenticator, RequestContext } from '../operations/request-context';
import type { ApiModule } from '../operations/routes';
import { authenticateRequests } from './authenticate';
import { docsAssets, docsPage } from './docs-page';
import { answerOtherMethods, mountModuleRoutes, requestContext, sendError } from './rest';

export const API_PREFIXES = ['/v1', '/api/v1'] as const;

/** The API a process with the `api` role serves: REST, GraphQL and the API reference. */
export interface ApiSurfaceOptions {
  schema: GraphQLSchema;
  authenticator: RequestAuthenticator;
  /** Every module's resolver and REST paths: {auth_url} ones at the root, {base_url} ones under /v1 and /api/v1. */
  modules: readonly ApiModule[];
  /** The OpenAPI document, served at /openapi.json and rendered at /docs. */
  openApiDocument: object;
}

export interface HttpAppOptions {
  log: Logger;
  /** Express `trust proxy` (TRUST_PROXY): whose X-Forwarded-For gives the client address. */
  trustProxy?: string;
  /** Absent (no `api` role): the process answers /health and /ready only. */
  api?: ApiSurfaceOptions;
  /** For GET /ready: `failing` names the dependencies that do not answer (no internal detail). */
  readiness: () => Promise<{ ready: boolean; failing: string[]; checks: Record<string, unknown> }>;
}

/** Media types parsed as JSON: application/json and any application/…+json. */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** The context of one HTTP request. */
class HttpRequestContext implements RequestContext {
  account: RequestContext['account'] = null;
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

/** A request with a body that is not JSON is refused with 415 (a POST without a body is fine). */
const requireJsonBody: RequestHandler = (req, res, next) => {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
  if (!hasBody || req.is(JSON_TYPES)) return next();
  res.status(415).json({
    status: 'failed',
    error: `Unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '(none)')}: send the body as application/json`,
  });
};

function trustProxySetting(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/**
 * A client's mistake that a library raised while reading the request (a body in an unknown
 * encoding or charset, a truncated upload, a malformed percent-encoding): its 4xx status and a
 * message fit to show, never a 500.
 */
function clientErrorOf(error: unknown): { status: number; message: string } | null {
  if (error instanceof URIError) return { status: 400, message: 'Malformed URL: invalid percent-encoding' };
  const { status, statusCode, expose, message } = (error ?? {}) as {
    status?: unknown;
    statusCode?: unknown;
    expose?: unknown;
    message?: unknown;
  };
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || code < 400 || code > 499) return null;
  const text = expose === true && typeof message === 'string' ? message : STATUS_CODES[code];
  return { status: code, message: `Bad request: ${text ?? 'client error'}` };
}

export async function createHttpApp(
  options: HttpAppOptions,
): Promise<{ app: express.Express; stop(): Promise<void> }> {
  const { log } = options;
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
      if (!log.isLevelEnabled('info')) return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.log.info(
        {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          ...ctx.logFields,
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
  app.use(requireJsonBody);
  app.use(express.json({ limit: '1mb', type: JSON_TYPES }));

  const probes = express.Router();
  probes.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  probes.get('/ready', async (_req, res, next) => {
    try {
      const { ready, failing, checks } = await options.readiness();
      res
        .status(ready ? 200 : 503)
        .json(ready ? { status: 'ready', checks } : { status: 'not_ready', failing, checks });
    } catch (error) {
      next(error);
    }
  });
  answerOtherMethods(probes, [
    { method: 'get', path: '/health' },
    { method: 'get', path: '/ready' },
  ]);
  app.use(probes);

  const stopApollo = options.api ? await mountApiSurface(app, options.api) : async () => undefined;
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
    const clientError = clientErrorOf(error);
    if (clientError) {
      res.status(clientError.status).json({ status: 'failed', error: clientError.message });
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
    res.status(status).json(body);
  };
  app.use(errorHandler);

  return { app, stop: stopApollo };
}

/**
 * The API itself: the API reference, {auth_url} and {base_url} routes, and GraphQL. Returns what
 * stops Apollo.
 */
async function mountApiSurface(
  app: express.Express,
  options: ApiSurfaceOptions,
): Promise<() => Promise<void>> {
  const reference = express.Router();
  reference.get('/openapi.json', (_req, res) => {
    res.json(options.openApiDocument);
  });
  reference.get('/docs', (_req, res) => {
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
  for (const prefix of API_PREFIXES) app.use(prefix, requireApiKey, api);

  return mountGraphQL(app, {
    schema: options.schema,
    authenticator: options.authenticator,
    authenticate: authenticateRequests(options.authenticator, {
      required: false,
      refuse: (res, error) => res.set(error.headers).status(error.httpStatus).json(graphqlErrorBody(error)),
    }),
    contextOf: requestContext,
  });
}
