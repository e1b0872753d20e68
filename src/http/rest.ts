import type { Request, RequestHandler, Response } from 'express';
import { AppError, RateLimitedError, type ValidationError } from '../errors';
import { renderError, type ErrorShapes } from '../operations/error-shapes';
import { operationRunner } from '../operations/operation';
import type { RequestContext } from '../operations/request-context';
import type { ApiModule, DeclaredRoute, HttpMethod, SuccessEnvelope } from '../operations/routes';
import { nameTracedRoute } from '../tracing';
import type { RouteTable, TableRoute } from './route-table';

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

/**
 * Answers `body` as JSON: what Express's `res.status().json()` sends (the same headers and bytes;
 * Node leaves the body out of a HEAD answer), without its per-answer content-type parsing and
 * formatting and its freshness check (answers are `no-store`, with no ETag).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Answers a failure body and notes why, for the request's log line. */
export function sendFailure(res: Response, status: number, body: object, failure: RequestFailure): void {
  res.locals.failure = failure;
  sendJson(res, status, body);
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
  sendFailure(res, status, body, failureFor(error));
}

/** What the request's log line and metrics note of an AppError it answered (a budget by name). */
export function failureFor(error: AppError): RequestFailure {
  return {
    code: error.code,
    message: error.message,
    ...(error instanceof RateLimitedError ? { budget: error.budget } : {}),
  };
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
 * One REST path onto its module's operation: the same run GraphQL makes (the operation's own
 * schema parses the request, the key was checked by the table's guard), the documented envelope
 * around the result, and an AppError rendered in the path's documented shape. Unexpected errors go
 * on to the app's handler (500).
 */
function routeHandler(module: ApiModule, route: DeclaredRoute): RequestHandler {
  // The route row's method (`Resolver.prototype.method`) on the module's one resolver instance:
  // see runOperation in src/operations/operation.ts for the rest of the way.
  const runOperation = operationRunner(module.resolver, route.operation);
  const { resultField } = route;
  const declared = route.status ?? 200;
  const status = (typeof declared === 'number' ? () => declared : declared) as (result: unknown) => number;
  return async (req, res, next) => {
    try {
      const result = (await runOperation(inputOf(route.method, req, res), requestContext(res))) as object;
      const body = resultField ? { [resultField]: result } : result;
      sendJson(res, status(result), envelope(route.envelope, body));
    } catch (error) {
      if (error instanceof AppError) sendError(res, route.errors, error);
      else next(error);
    }
  };
}

/**
 * The routes of `base` (`auth`: {auth_url}, `api`: {base_url}) of every module under each of
 * `prefixes`, for the route table: literal paths first then paths with parameters, so that another
 * method on a literal path is that path's 405, not a parameter's value (`GET
 * /transactions/execute` is not a transaction hash). Each is labelled `/v1<path>` under any
 * prefix ({base_url}) and guarded by `guard`.
 */
export function moduleRoutes(
  modules: readonly ApiModule[],
  base: DeclaredRoute['base'],
  options: { prefixes: readonly string[]; guard?: RequestHandler },
): TableRoute[][] {
  const declared = modules.flatMap((module) =>
    module.routes
      .filter((route) => route.base === base)
      .map((route) => ({ route, handle: routeHandler(module, route) })),
  );
  return [true, false].map((literal) =>
    options.prefixes.flatMap((prefix) =>
      declared
        .filter(({ route }) => route.path.includes(':') !== literal)
        .map(({ route, handle }) => ({
          method: route.method,
          path: `${prefix}${route.path}`,
          label: `${base === 'api' ? '/v1' : ''}${route.path}`,
          guard: options.guard,
          handle,
        })),
    ),
  );
}

/**
 * The route table as middleware: a request whose path is in it is labelled with its route,
 * guarded, and answered by its handler or with 405 and `Allow`; any other goes on. A handler's
 * rejected promise goes to the app's error handler, as Express 5 does.
 */
export function dispatchRoutes(table: RouteTable): RequestHandler {
  return (req, res, next) => {
    let found: ReturnType<RouteTable['find']>;
    try {
      found = table.find(req.method, req.path);
    } catch (error) {
      return next(error); // a malformed percent-encoding in a parameter: 400 (app.ts)
    }
    if (!found) return next();
    const { entry, params, handle } = found;
    noteRoute(res, entry.label);
    nameTracedRoute(entry.path);
    req.params = params;
    const run = (error?: unknown) => {
      if (error !== undefined) return next(error);
      if (!handle) return answerOtherMethod(req, res, entry.allow);
      try {
        const result: unknown = handle(req, res, next);
        if (result instanceof Promise) result.catch(next);
      } catch (caught) {
        next(caught);
      }
    };
    if (entry.guard) void entry.guard(req, res, run);
    else run();
  };
}

/** 405 with `Allow`: a known path asked with another method. */
function answerOtherMethod(req: Request, res: Response, allow: string): void {
  const error = `Method ${req.method} not allowed on ${req.path}; use ${allow}`;
  res.set('Allow', allow);
  sendFailure(res, 405, { status: 'failed', error }, { code: 'method_not_allowed', message: error });
}
