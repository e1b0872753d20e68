import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { dispatchRoutes, RouteTable, securityHeaders, sendJson } from '../../src/fast-paths';
import { HELMET_OPTIONS } from '../../src/fast-paths/security-headers';
import type { HttpMethod } from '../../src/operations/routes';

/**
 * Each fast path answers exactly as the Express or helmet behaviour it replaces: the two run side
 * by side in one real server, and every answer is compared (status, headers, bytes).
 */

/** Headers that differ between any two answers (the clock, the connection). */
const VOLATILE = new Set(['date', 'connection', 'keep-alive']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function withServer<T>(app: express.Express, run: (url: string) => Promise<T>): Promise<T> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function answer(url: string, method = 'GET'): Promise<Answer> {
  const response = await fetch(url, { method });
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => !VOLATILE.has(name.toLowerCase())),
  );
  return { status: response.status, headers, body: await response.text() };
}

function plainApp(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  return app;
}

describe('the fast paths answer as what they replace', () => {
  it("helmet's headers taken once are the headers helmet's middleware sets on every request", async () => {
    const app = plainApp();
    const once = securityHeaders();
    app.get('/helmet', helmet(HELMET_OPTIONS), (_req, res) => void res.end('x'));
    app.get('/once', (_req, res) => {
      for (const [name, value] of once) res.setHeader(name, value);
      res.end('x');
    });
    await withServer(app, async (url) => {
      const [byHelmet, byOnce] = [await answer(`${url}/helmet`), await answer(`${url}/once`)];
      expect(Object.keys(byHelmet.headers).length).toBeGreaterThan(5);
      expect(byOnce).toEqual(byHelmet);
    });
  });

  it("sendJson sends res.status().json()'s status, headers and bytes, for GET and HEAD", async () => {
    const bodies: [number, unknown][] = [
      [200, { status: 'success', amount: '1.5', nested: { list: [1, 'ü', null] } }],
      [201, []],
      [404, { status: 'failed', error: 'Not found: ✓' }],
      [200, 'text'],
      [200, null],
      [200, 0],
    ];
    const app = plainApp();
    app.get('/express/:i', (req, res) => {
      const [status, body] = bodies[Number(req.params.i)];
      res.status(status).json(body);
    });
    app.get('/fast/:i', (req, res) => {
      const [status, body] = bodies[Number(req.params.i)];
      sendJson(res, status, body);
    });
    await withServer(app, async (url) => {
      for (const method of ['GET', 'HEAD']) {
        for (const i of bodies.keys()) {
          const byExpress = await answer(`${url}/express/${i}`, method);
          expect({ method, i, answer: await answer(`${url}/fast/${i}`, method) }).toEqual({
            method,
            i,
            answer: byExpress,
          });
        }
      }
    });
  });

  it("the route table finds the route and parameters Express's router finds", async () => {
    const routes: [HttpMethod, string][] = [
      ['get', '/v1/webhook/secret'],
      ['post', '/v1/webhook/secret'],
      ['get', '/v1/webhook/:id'],
      ['patch', '/v1/webhook/:id'],
      ['delete', '/v1/webhook/:id'],
      ['get', '/v1/webhook/:id/logs'],
      ['get', '/v1/transactions/:hash'],
      ['post', '/v1/transactions/execute'],
      ['get', '/'],
    ];
    const found =
      (path: string): RequestHandler =>
      (req, res) =>
        void res.json({ path, params: { ...req.params } });
    const viaExpress = plainApp();
    const router = express.Router();
    for (const [method, path] of routes) router[method](path, found(path));
    viaExpress.use(router);
    const viaTable = plainApp();
    const table = new RouteTable();
    table.add(
      routes
        .filter(([, path]) => !path.includes(':'))
        .map(([method, path]) => ({ method, path, handle: found(path) })),
    );
    table.add(
      routes
        .filter(([, path]) => path.includes(':'))
        .map(([method, path]) => ({ method, path, handle: found(path) })),
    );
    viaTable.use(dispatchRoutes(table));

    const requests: [string, string][] = [
      ['GET', '/v1/webhook/secret'],
      ['GET', '/V1/Webhook/SECRET/'],
      ['HEAD', '/v1/webhook/secret'],
      ['POST', '/v1/webhook/secret'],
      ['GET', '/v1/webhook/abc'],
      ['GET', '/v1/webhook/a%20b%2Fc/'],
      ['PATCH', '/v1/WEBHOOK/Id-1'],
      ['DELETE', '/v1/webhook/7'],
      ['GET', '/v1/webhook/7/logs'],
      ['HEAD', '/v1/webhook/7/logs/'],
      ['GET', '/v1/transactions/0xAbC'],
      ['POST', '/v1/transactions/execute'],
      ['GET', '/'],
    ];
    await withServer(viaExpress, (expressUrl) =>
      withServer(viaTable, async (tableUrl) => {
        for (const [method, path] of requests) {
          const byExpress = await answer(`${expressUrl}${path}`, method);
          expect(byExpress.status).toBe(200);
          expect({ method, path, answer: await answer(`${tableUrl}${path}`, method) }).toEqual({
            method,
            path,
            answer: byExpress,
          });
        }
      }),
    );
  });
});
