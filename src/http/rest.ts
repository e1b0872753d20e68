import type { Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '../errors';
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

/** Answers an AppError over HTTP in the given documented shape, with the headers it carries. */
export function sendError(res: Response, shapes: ErrorShapes, error: AppError): void {
  const { status, body } = renderError(shapes, error);
  res.set(error.headers).status(status).json(body);
}

/** An operation's raw input: the query string and path parameters for GET and DELETE, the JSON body (with path parameters) otherwise. */
function inputOf(method: HttpMethod, req: Request): unknown {
  if (method === 'get' || method === 'delete') return { ...req.query, ...req.params };
  const body: unknown = req.body ?? {};
  const params = Object.keys(req.params ?? {});
  return params.length && typeof body === 'object' && !Array.isArray(body)
    ? { ...body, ...req.params }
    : body;
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
  return async (req, res, next) => {
    try {
      const result = (await operation.call(inputOf(route.method, req), requestContext(res))) as object;
      const body = resultField ? { [resultField]: result } : result;
      res.status(status(result)).json(envelope(route.envelope, body));
    } catch (error) {
      if (error instanceof AppError) sendError(res, route.errors, error);
      else next(error);
    }
  };
}

/**
 * Mounts the paths of `base` (`auth`: {auth_url}, `api`: {base_url}) of every module on `router`:
 * the literal paths with the 405 answers of their other methods first, then the paths with
 * parameters and theirs, so that another method on a literal path is a 405 rather than a
 * parameter's value (`GET /transactions/execute` is not a transaction hash).
 */
export function mountModuleRoutes(
  router: Router,
  modules: readonly ApiModule[],
  base: DeclaredRoute['base'],
): void {
  const declared = modules.flatMap((module) =>
    module.routes.filter((route) => route.base === base).map((route) => ({ module, route })),
  );
  for (const literal of [true, false]) {
    const mounted: MountedRoute[] = [];
    for (const { module, route } of declared) {
      if (route.path.includes(':') === literal) continue;
      router[route.method](route.path, routeHandler(module, route));
      mounted.push(route);
    }
    answerOtherMethods(router, mounted);
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
      res
        .set('Allow', allow)
        .status(405)
        .json({
          status: 'failed',
          error: `Method ${req.method} not allowed on ${req.baseUrl}${req.path}; use ${allow}`,
        });
    });
  }
}
