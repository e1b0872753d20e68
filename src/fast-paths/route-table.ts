import type { Request, RequestHandler, Response } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import type { HttpMethod } from '../operations/routes';
import { nameTracedRoute } from '../tracing';
import { noteRoute, sendFailure } from './answers';

/** One method of one path, as the table dispatches it. */
export interface TableRoute {
  method: HttpMethod;
  /** The whole path, Express syntax (`/v1/webhook/:id`). */
  path: string;
  /** The bounded label of its requests in logs and metrics (default: the path). */
  label?: string;
  /** Runs before the route's handler and before its paths' 405 answers (the API key check). */
  guard?: RequestHandler;
  handle: RequestHandler;
}

/** The routes of one path. */
export interface PathEntry {
  path: string;
  label: string;
  guard?: RequestHandler;
  /** Lower case, up to its first parameter: no path that does not start so can match. */
  head: string;
  /** Express's matching: case-insensitive, an optional trailing slash, parameters URI-decoded. */
  matches: MatchFunction<Record<string, string>>;
  /** By upper-case method; HEAD falls back to GET, as Express does. */
  handlers: Map<string, RequestHandler>;
  /** The `Allow` header of its 405 answers. */
  allow: string;
}

/** What a request's method and path found. */
export interface FoundRoute {
  entry: PathEntry;
  params: Record<string, string>;
  /** Undefined: the path is known, the method is not (405). */
  handle?: RequestHandler;
}

/** A parameter as Express decodes it: a malformed percent-encoding is a URIError (400, app.ts). */
function decodeParameter(value: string): string {
  return value.includes('%') ? decodeURIComponent(value) : value;
}

/** The key of a literal path: Express matches it case-insensitively, with or without one trailing slash. */
function literalKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

function handlerOf(entry: PathEntry, method: string): RequestHandler | undefined {
  return entry.handlers.get(method) ?? (method === 'HEAD' ? entry.handlers.get('GET') : undefined);
}

/**
 * Every route of the app in one table, looked up once per request (rest.ts dispatches it), instead
 * of a walk through a router per module and a layer per route and per 405 answer (Express tries
 * each layer's regular expression in turn, a large share of a cheap request's CPU). The same
 * answers as those routers: paths match as Express matches them; groups are searched in the order
 * they were added, the literal paths of a group by one map lookup; within a group the first route
 * whose path and method match wins, else the first path that matches is a 405.
 */
export class RouteTable {
  private readonly groups: {
    /** A group without parameters: its paths by literalKey. */
    literal: Map<string, PathEntry> | null;
    entries: PathEntry[];
    /** Its routes in the order added, each with its path's entry. */
    routes: { entry: PathEntry; method: string; handle: RequestHandler }[];
  }[] = [];

  /** Adds a group of routes, searched after the groups added before it. */
  add(routes: readonly TableRoute[]): this {
    const entries = new Map<string, PathEntry>();
    const ordered: (typeof this.groups)[number]['routes'] = [];
    for (const route of routes) {
      let entry = entries.get(route.path);
      if (!entry) {
        entry = {
          path: route.path,
          label: route.label ?? route.path,
          head: route.path.split(':')[0].toLowerCase(),
          guard: route.guard,
          matches: match(route.path === '/' ? '/' : route.path.replace(/\/+$/, ''), {
            sensitive: false,
            end: true,
            trailing: true,
            decode: decodeParameter,
          }),
          handlers: new Map(),
          allow: '',
        };
        entries.set(route.path, entry);
      }
      const method = route.method.toUpperCase();
      if (!entry.handlers.has(method)) entry.handlers.set(method, route.handle);
      ordered.push({ entry, method, handle: route.handle });
    }
    for (const entry of entries.values()) {
      // In the order declared, HEAD right after GET (as Express's routers list them).
      entry.allow = [...entry.handlers.keys()]
        .flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
        .join(', ');
    }
    const literal = routes.every((route) => !route.path.includes(':'));
    this.groups.push({
      literal: literal
        ? new Map([...entries.values()].map((entry) => [literalKey(entry.path), entry]))
        : null,
      entries: [...entries.values()],
      routes: ordered,
    });
    return this;
  }

  /** The route of a method and path, a known path's 405, or null. Throws URIError for a malformed parameter. */
  find(method: string, path: string): FoundRoute | null {
    for (const group of this.groups) {
      if (group.literal) {
        const entry = group.literal.get(literalKey(path));
        // The map narrows; Express's own matching decides (the same for every ASCII path).
        const matched = entry?.matches(path);
        if (entry && matched) return { entry, params: matched.params, handle: handlerOf(entry, method) };
        continue;
      }
      const lower = path.toLowerCase();
      const matched = new Map<PathEntry, Record<string, string> | null>();
      const paramsOf = (entry: PathEntry) => {
        if (!matched.has(entry)) {
          const result = lower.startsWith(entry.head) && entry.matches(path);
          matched.set(entry, result ? result.params : null);
        }
        return matched.get(entry);
      };
      for (const route of group.routes) {
        const handles = route.method === method || (method === 'HEAD' && route.method === 'GET');
        const params = handles && paramsOf(route.entry);
        if (params) return { entry: route.entry, params, handle: route.handle };
      }
      const known = group.entries.find((entry) => paramsOf(entry));
      if (known) return { entry: known, params: paramsOf(known)!, handle: undefined };
    }
    return null;
  }
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
