import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { RequestHandler, Response } from 'express';
import type { RequestContext } from '../operations/request-context';

/**
 * Apollo Server's HTTP handling called from Laurel's own handler: what @as-integrations/express5
 * does (headers, query string and the body read by the app's JSON reader in; status, headers and
 * body out), without its legacy `url.parse` of every URL and Express's `res.send`, and without its
 * 500 for a GET, which has no body (Apollo answers a GET itself).
 */
export function answerGraphQL(
  apollo: ApolloServer<RequestContext>,
  contextOf: (res: Response) => RequestContext,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const headers = new HeaderMap();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: req.method.toUpperCase(),
          headers,
          search: searchOf(req.url),
          body: req.body as unknown,
        },
        context: async () => contextOf(res),
      });
      for (const [name, value] of response.headers) res.setHeader(name, value);
      res.statusCode = response.status ?? 200;
      if (response.body.kind === 'complete') {
        res.setHeader('Content-Length', Buffer.byteLength(response.body.string));
        res.end(response.body.string);
        return;
      }
      // Incremental delivery (@defer): Apollo's chunks as they come.
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Middlewares run in turn as one layer of the app's router (each layer costs every request that
 * passes it); an error skips the rest.
 */
export function inTurn(...handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    const run = (index: number) => (error?: unknown) => {
      if (error !== undefined || index === handlers.length) return next(error);
      try {
        const result: unknown = handlers[index](req, res, run(index + 1));
        if (result instanceof Promise) result.catch(next);
      } catch (caught) {
        next(caught);
      }
    };
    run(0)();
  };
}

/** The query string of a request URL with its `?` (what `url.parse(url).search` gives), or ''. */
function searchOf(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return '';
  const end = url.indexOf('#', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
