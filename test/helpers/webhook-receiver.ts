/**
 * An HTTPS webhook receiver for tests, on 127.0.0.1 with a certificate of the test CA (or an
 * expired or self-signed one). Each path answers with a handler; every call is recorded with its
 * raw body, so signatures can be checked exactly as a receiver would.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { testCa } from './test-ca';
import { createServerCertificate } from '../../src/modules/webhooks/certificates';

export interface ReceivedCall {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw request body. */
  body: string;
}

export type ReceiverHandler = (call: ReceivedCall, response: ServerResponse) => void;

export interface WebhookReceiver {
  /** https://127.0.0.1:<port><path> */
  url(path: string): string;
  port: number;
  calls: ReceivedCall[];
  /** TLS connections accepted so far (each one a handshake). */
  readonly connections: number;
  /** TLS connections open now. */
  readonly openConnections: number;
  /** Answers calls to `path` with `handler` (default: 200 `{}`). */
  route(path: string, handler: ReceiverHandler): void;
  /** Resolves with the calls to `path` once there are `count` of them (polls, with a deadline). */
  waitForCalls(path: string, count: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  stop(): Promise<void>;
}

/** 200 `{"challenge": <the request's signature header>}`: the answer that verifies a webhook. */
export function answerChallenge(signatureHeader = 'x-laurel-signature'): ReceiverHandler {
  return (call, response) => json(response, 200, { challenge: call.headers[signatureHeader] });
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Answers `status` to the first `times` calls, then hands over to `then`. */
export function failTimes(
  times: number,
  then: ReceiverHandler,
  status = 500,
  headers: Record<string, string> = {},
): ReceiverHandler {
  let failed = 0;
  return (call, response) => {
    if (failed++ < times) response.writeHead(status, headers).end('failing on purpose');
    else then(call, response);
  };
}

/** A 302 to `location`. */
export function redirectTo(location: string): ReceiverHandler {
  return (_call, response) => response.writeHead(302, { location }).end();
}

/** Never answers (the connection is closed when the receiver stops). */
export const neverAnswer: ReceiverHandler = () => undefined;

// Hostile receivers: what a receiver can answer that Laurel must store safely and survive.

/** `status` with exactly these bytes as the body (NUL bytes, invalid UTF-8, ...). */
export function answerBytes(status: number, body: Buffer, contentType = 'application/json'): ReceiverHandler {
  return (_call, response) => response.writeHead(status, { 'content-type': contentType }).end(body);
}

/** 200 with a body of `bytes` bytes (containing NUL bytes), written as fast as the client reads. */
export function answerHuge(bytes: number): ReceiverHandler {
  const chunk = Buffer.alloc(64 * 1024, 'a\u0000');
  return (_call, response) => {
    let sent = 0;
    // The client stops reading at its bound and drops the connection: not an error here.
    response.on('error', () => undefined);
    const pump = () => {
      while (sent < bytes && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end();
    };
    response.writeHead(200, { 'content-type': 'text/plain' });
    pump();
  };
}

/** 200 and then one byte every `intervalMs`, never ending the body. */
export function trickle(intervalMs: number): ReceiverHandler {
  return (_call, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => response.write(' '), intervalMs);
    response.on('close', () => clearInterval(timer));
  };
}

/** Each call answered by the next handler; the last one answers every call after. */
export function inTurn(...handlers: ReceiverHandler[]): ReceiverHandler {
  let next = 0;
  return (call, response) => handlers[Math.min(next++, handlers.length - 1)]!(call, response);
}

export async function startWebhookReceiver(
  options: { certificate?: 'trusted' | 'expired' | 'self-signed' } = {},
): Promise<WebhookReceiver> {
  const kind = options.certificate ?? 'trusted';
  const { cert, key } = await createServerCertificate(kind === 'self-signed' ? null : testCa(), {
    expired: kind === 'expired',
  });
  const calls: ReceivedCall[] = [];
  const routes = new Map<string, ReceiverHandler>();
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer({ cert, key }, (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = {
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      };
      calls.push(call);
      (routes.get(call.path) ?? ((_c, r) => json(r, 200, {})))(call, response);
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined); // the client refusing our certificate is a tested case
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    calls,
    get connections() {
      return connections;
    },
    get openConnections() {
      return sockets.size;
    },
    url: (path) => `https://127.0.0.1:${port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    waitForCalls: async (path, count, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = calls.filter((call) => call.path === path);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) {
          throw new Error(`${path}: ${matching.length} of ${count} calls within ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
