import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { RequestContext } from '../context';
import { AppError } from '../errors';
import { parseInput } from '../validation';
import { renderError, type ErrorShapes } from './error-shapes';

/** The documented success envelope: `{status:'success', ...}`, `{success:true, ...}` or the result as is. */
export type SuccessEnvelope = 'status' | 'success' | 'none';

export interface RestEndpoint<S extends z.ZodTypeAny> {
  method: 'get' | 'post' | 'delete';
  path: string;
  /** The operation's zod schema: the same one GraphQL validates with. */
  input: S;
  /** Where the input comes from; by default the query string for GET, the JSON body otherwise. */
  source?: (req: Request) => unknown;
  errors: ErrorShapes;
  envelope: SuccessEnvelope;
  /** Calls the operation's resolver method and returns its result. */
  handle: (input: z.output<S>, ctx: RequestContext) => Promise<object>;
  /** HTTP status of a success (default 200); a function when the result decides it. */
  status?: number | ((result: object) => number);
}

export function requestContext(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

function defaultSource(method: RestEndpoint<z.ZodTypeAny>['method'], req: Request): unknown {
  if (method === 'get' || method === 'delete') return { ...req.query, ...req.params };
  return req.body ?? {};
}

export function envelope(kind: SuccessEnvelope, result: object): object {
  if (kind === 'status') return { status: 'success', ...result };
  if (kind === 'success') return { success: true, ...result };
  return result;
}

/**
 * Maps a documented REST path onto an operation: parse with the operation's zod schema, call
 * the resolver method, wrap the documented envelope, and render any AppError in the endpoint's
 * documented shape. Unexpected errors go on to the app's error handler (500).
 */
export function mount<S extends z.ZodTypeAny>(router: Router, endpoint: RestEndpoint<S>): void {
  const handler: RequestHandler = async (req, res, next) => {
    const ctx = requestContext(res);
    try {
      const raw = endpoint.source ? endpoint.source(req) : defaultSource(endpoint.method, req);
      const input = parseInput(endpoint.input, raw);
      const result = await endpoint.handle(input, ctx);
      const status =
        typeof endpoint.status === 'function' ? endpoint.status(result) : (endpoint.status ?? 200);
      res.status(status).json(envelope(endpoint.envelope, result));
    } catch (error) {
      if (error instanceof AppError) {
        const { status, body } = renderError(endpoint.errors, error);
        if (error.httpStatus === 429 && 'retryAfterSeconds' in error) {
          res.setHeader('Retry-After', String(error.retryAfterSeconds));
        }
        res.status(status).json(body);
        return;
      }
      next(error);
    }
  };
  router[endpoint.method](endpoint.path, handler);
}
