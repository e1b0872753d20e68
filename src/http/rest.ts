import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { AppError, RateLimitedError, type ValidationError } from '../errors';
import { renderError, type ErrorShapes } from '../operations/error-shapes';
import { callableOperation } from '../operations/operation';
import type { RequestContext } from '../operations/request-context';
import type {
  ApiModule,
  DeclaredRoute,
  HttpMethod,
  MountedRoute,
  SuccessEnvelope,
} from '../operations/routes';

/** The request's context, made by the app's first middleware. */
export function requestContext(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

/** Why a request failed, for its log line and the metrics (never a secret: what the client was told). */
export interface RequestFailure {
  code: string;
  message: string;
  /** The budget that refused a rate-limited request. */
  budget?: string;
}

/** Answers a failure body and notes why, for the request's log line. */
export function sendFailure(res: Response, status: number, body: object, failure: RequestFailure): void {
  res.locals.failure = failure;
  res.status(status).json(body);
}

/** The failure noted for a request, if any. */
export function failureOf(res: Response): RequestFailure | undefined {
  return res.locals.failure as RequestFailure | undefined;
}

/**
 * Keeps why the request's body could not be read (not JSON, a broken stream): the route it reaches
 * answers it in its own validation shape (after the key check), GraphQL in its own way.
 */
export function holdUnreadableBody(res: Response, error: ValidationError): void {
  res.locals.unreadableBody = error;
}

/** Why the request's body could not be read, if it could not. */
export function unreadableBodyOf(res: Response): ValidationError | undefined {
  return res.locals.unreadableBody as ValidationError | undefined;
}

/** Notes the route template a request matched (a bounded label: `/v1/webhook/:id`). */
export function noteRoute(res: Response, route: string): void {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (ctx) ctx.route = route;
}

/** Answers an AppError over HTTP in the given documented shape, with the headers it carries. */
export function sendError(res: Response, shapes: ErrorShapes, error: AppError): void {
  const { status, body } = renderError(shapes, error);
  res.set(error.headers);
  sendFailure(res, status, body, {
    code: error.code,
    message: error.message,
    ...(error instanceof RateLimitedError ? { budget: error.budget } : {}),
  });
}

/**
 * An operation's raw input: the query string and path parameters for GET and DELETE, the JSON body
 * (with path parameters) otherwise; no body is an empty object. A body that is JSON but not an
 * object (`"a"`, `[]`, `null`) is the input as it is: the operation's schema refuses it.
 */
function inputOf(method: HttpMethod, req: Request, res: Response): unknown {
  if (method === 'get' || method === 'delete') return { ...req.query, ...req.params };
  const unreadable = unreadableBodyOf(res);
  if (unreadable) throw unreadable;
  const body: unknown = req.body === undefined ? {} : req.body;
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  return isObject ? { ...body, ...req.params } : body;
}

export function envelope(kind: SuccessEnvelope, result: object): object {
  if (kind === 'status') return { status: 'success', ...result };
  if (kind === 'success') return { success: true, ...result };
  return result;
}

/**
 * One REST path onto its module's operation: the same call GraphQL makes (the operation's own
 * schema parses the request, the key was checked by the router), the documented envelope around
 * the result, and an AppError rendered in the path's documented shape. Unexpected errors go on to
 * the app's handler (500).
 */
function routeHandler(module: ApiModule, route: DeclaredRoute): RequestHandler {
  const operation = callableOperation(module.resolver, route.operation);
  const { resultField } = route;
  const declared = route.status ?? 200;
  const status = (typeof declared === 'number' ? () => declared : declared) as (result: unknown) => number;
  const template = `${route.base === 'api' ? '/v1' : ''}${route.path}`;
  return async (req, res, next) => {
    noteRoute(res, template);
    try {
      const result = (await operation.call(inputOf(route.method, req, res), requestContext(res))) as object;
      const body = resultField ? { [resultField]: result } : result;
      res.status(status(result)).json(envelope(route.envelope, body));
    } catch (error) {
      if (error instanceof AppError) sendError(res, route.errors, error);
      else next(error);
    }
  };
}

/**
 * The routes of `base` (`auth`: {auth_url}, `api`: {base_url}) of every module, literal paths first
 * then paths with parameters: another method on a literal path is that path's, not a parameter's
 * value (`GET /transactions/execute` is not a transaction hash).
 */
function declaredInOrder(modules: readonly ApiModule[], base: DeclaredRoute['base']) {
  const declared = modules.flatMap((module) =>
    module.routes.filter((route) => route.base === base).map((route) => ({ module, route })),
  );
  return [true, false].map((literal) => declared.filter(({ route }) => route.path.includes(':') !== literal));
}

/**
 * A router that only notes the route template of a {base_url} request and goes on: mounted before
 * the key check, so a refused request (401, 429) is counted under its route too. The first path
 * that matches names it, in the order the routes are mounted.
 */
export function routeLabels(modules: readonly ApiModule[]): Router {
  const labels = express.Router();
  for (const group of declaredInOrder(modules, 'api')) {
    for (const path of new Set(group.map(({ route }) => route.path))) {
      const template = `/v1${path}`;
      labels.all(path, (_req, res, next) => {
        if (!requestContext(res).route) noteRoute(res, template);
        next();
      });
    }
  }
  return labels;
}

/**
 * Mounts the paths of `base` of every module on `router` in that order, each group followed by the
 * 405 answers of its paths' other methods.
 */
export function mountModuleRoutes(
  router: Router,
  modules: readonly ApiModule[],
  base: DeclaredRoute['base'],
): void {
  for (const group of declaredInOrder(modules, base)) {
    for (const { module, route } of group) router[route.method](route.path, routeHandler(module, route));
    answerOtherMethods(
      router,
      group.map(({ route }) => route),
    );
  }
}

/**
 * 405 with `Allow` for a known path asked with another method. Mount after every route of the
 * router, so that no path's 405 shadows another path's route.
 */
export function answerOtherMethods(router: Router, routes: readonly MountedRoute[]): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const { method, path } of routes) {
    const methods = methodsByPath.get(path) ?? new Set<string>();
    methods.add(method.toUpperCase());
    if (method === 'get') methods.add('HEAD');
    methodsByPath.set(path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].join(', ');
    router.all(path, (req, res) => {
      const error = `Method ${req.method} not allowed on ${req.baseUrl}${req.path}; use ${allow}`;
      res.set('Allow', allow);
      sendFailure(res, 405, { status: 'failed', error }, { code: 'method_not_allowed', message: error });
    });
  }
}
