import type { Request, RequestHandler, Response, Router } from 'express';
import { requireAccount, type RequestContext } from '../context';
import { AppError } from '../errors';
import { declaredMethodOf, operationOf } from '../graphql/operation';
import { parseInput } from '../validation';
import { sendError, type ErrorShapes } from './error-shapes';

/** The documented success envelope: `{status:'success', ...}`, `{success:true, ...}` or the result as is. */
export type SuccessEnvelope = 'status' | 'success' | 'none';

/** The names of a resolver's methods. */
export type OperationName<R> = {
  [K in keyof R]: R[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof R] &
  string;

type ResultOf<R, K extends OperationName<R>> = R[K] extends (...args: never[]) => Promise<infer T>
  ? T
  : never;

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

interface RouteOf<R, K extends OperationName<R>> {
  method: HttpMethod;
  /** Express path, relative to {base_url} (or {auth_url} for the key routes). */
  path: string;
  /** The resolver method (an @Operation) this path calls: its input schema parses the request. */
  operation: K;
  /** The documented failure bodies of this path. */
  errors: ErrorShapes;
  envelope: SuccessEnvelope;
  /** Where the input comes from; by default the query string and path parameters for GET and DELETE, the JSON body otherwise. */
  source?: (req: Request) => unknown;
  /** The documented body puts the result under this field (`{keys: [...]}`); by default the result is the body. */
  resultField?: string;
  /** HTTP status of a success (default 200). */
  status?: (result: ResultOf<R, K>) => number;
  /** Other statuses `status` answers with the success body, for the API reference. */
  alsoAnswers?: readonly { status: number; description: string }[];
  /** What the API reference adds about this path. */
  description?: string;
}

/** A REST path of a resolver's operation. */
export type RestRoute<R> = { [K in OperationName<R>]: RouteOf<R, K> }[OperationName<R>];

export function requestContext(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

function defaultSource(method: HttpMethod, req: Request): unknown {
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
 * Mounts REST paths onto a resolver's operations: parse the request with the operation's own
 * schema, call the very method GraphQL calls, wrap the documented envelope, and render an
 * AppError in the path's documented shape. Unexpected errors go on to the app's handler (500).
 */
export function mountRoutes<R extends object>(
  router: Router,
  resolver: R,
  routes: readonly RestRoute<R>[],
): MountedRoute[] {
  for (const route of routes) {
    const operation = operationOf(resolver.constructor, route.operation);
    const method = declaredMethodOf(resolver.constructor, route.operation).bind(resolver) as (
      input: unknown,
      ctx: RequestContext,
    ) => Promise<object>;
    const { resultField } = route;
    const shape = (result: object): object => (resultField ? { [resultField]: result } : result);
    const status = (route.status ?? (() => 200)) as (result: object) => number;
    const handler: RequestHandler = async (req, res, next) => {
      const ctx = requestContext(res);
      try {
        if (!operation.public) requireAccount(ctx);
        const raw = route.source ? route.source(req) : defaultSource(route.method, req);
        const result = await method(parseInput(operation.input, raw), ctx);
        res.status(status(result)).json(envelope(route.envelope, shape(result)));
      } catch (error) {
        if (error instanceof AppError) sendError(res, route.errors, error);
        else next(error);
      }
    };
    router[route.method](route.path, handler);
  }
  return routes.map(({ method, path }) => ({ method, path }));
}

export interface MountedRoute {
  method: HttpMethod;
  path: string;
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
