import type { Request, RequestHandler, Response } from 'express';
import { AppError, RateLimitedError, type ValidationError } from '../errors';
import { renderError, type ErrorShapes } from '../operations/error-shapes';
import { operationRunner } from '../operations/operation';
import type { RequestContext } from '../operations/request-context';
import type { ApiModule, DeclaredRoute, HttpMethod, SuccessEnvelope } from '../operations/routes';
import { sendFailure, type RequestFailure } from '../fast-paths/answers';
import { sendJson, type TableRoute } from '../fast-paths';

/** The request's context, made by the app's first middleware. */
export function requestContext(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
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
      const ctx = requestContext(res);
      const result = (await runOperation(inputOf(route.method, req, res), ctx)) as object;
      // Stripe's header: the answer is an earlier request's, kept under its Idempotency-Key.
      if (ctx.idempotency?.replayed) res.setHeader('Idempotent-Replayed', 'true');
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
