import {
  createServer,
  STATUS_CODES,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import { SHUTTING_DOWN_MESSAGE } from '../errors';
import { KeyedCounts } from '../keyed-counts';

/** A listening HTTP server whose handler comes later. */
export interface Listening {
  server: Server;
  url: string;
  handle(listener: RequestListener): void;
  /**
   * Starts the drain of a stop, at once: the port stops listening (new connections are refused),
   * every answer still to be written says `Connection: close` (its socket closes after it), and a
   * request read from now on (on a kept-alive connection) is not taken: 503 `Laurel is shutting
   * down` with `Connection: close`. Resolves once every request taken before is answered, its
   * socket closed, and the connections left idle closed (after SHUTDOWN_IDLE_LINGER_MS). What is left then is cut by `cut()`.
   */
  drain(): Promise<void>;
  /** Requests taken and not answered yet. */
  inFlight(): number;
}

/** Outside Laurel's life (starting, or stopping): alive (/health 200), not ready, nothing else. */
function notServing(error: string, readiness: object, close: boolean): RequestListener {
  return (req, res) => {
    const health = req.url === '/health';
    const ready = req.url === '/ready';
    res.writeHead(health ? 200 : 503, {
      'content-type': 'application/json',
      'retry-after': '1',
      ...(close ? { connection: 'close' } : {}),
    });
    res.end(JSON.stringify(health ? { status: 'ok' } : ready ? readiness : { status: 'failed', error }));
  };
}

const starting = notServing('Laurel is starting', { status: 'failed', error: 'Laurel is starting' }, false);
const stopping = notServing(
  SHUTTING_DOWN_MESSAGE,
  { status: 'not_ready', failing: ['shutting down'], checks: {} },
  true,
);

async function listen(config: Config, port: number, what: string): Promise<Listening> {
  let handler = starting;
  // Requests taken and not answered yet; once draining, each one answered may end the drain.
  const taken = new Set<ServerResponse>();
  let draining: (() => void) | null = null;
  // Slow or idle clients cannot hold sockets for long, nor open them without bound.
  const server = createServer(
    {
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // How often those timeouts are checked (Node's default, 30 s, would let them run long).
      connectionsCheckingInterval: Math.min(1_000, config.http.requestTimeoutMs),
    },
    (req, res) => {
      if (draining) return stopping(req, res);
      taken.add(res);
      res.once('close', () => {
        taken.delete(res);
        if (taken.size === 0) draining?.();
      });
      handler(req, res);
    },
  );
  server.maxConnections = config.http.maxConnections;
  server.on('clientError', answerUnparsed);
  // A CONNECT request (a proxy's tunnel) is not for this server: Node would cut it without a word.
  server.on('connect', (_req, socket: Duplex) => answerRaw(socket, 405, 'Method not allowed: CONNECT'));
  server.on('connection', connectionGuard(config.http.maxConnectionsPerClient, config.http.headersTimeoutMs));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use; set ${what}`) : error;
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    server,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    handle: (listener) => (handler = listener),
    inFlight: () => taken.size,
    drain: async () => {
      const closed = new Promise<void>((resolve) => {
        // net.Server's close: the port stops listening, but connections left idle are not closed
        // yet (http.Server's close closes them at once: a request the client sent on one just
        // before, not read yet, would be cut without an answer). A request read from one is
        // answered 503 with `Connection: close`; those still idle are closed once the drain ends.
        NetServer.prototype.close.call(server, () => resolve());
      });
      const answered = new Promise<void>((resolve) => (draining = resolve));
      for (const res of taken) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (taken.size === 0) draining!();
      await answered;
      // The requests already on their way on idle connections (sent, not read yet: the event loop
      // was busy answering) are read and answered within the linger; closing at once would reset them.
      const open = await new Promise<number>((resolve, reject) =>
        server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
      if (open > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownIdleLingerMs));
      server.closeIdleConnections();
      await closed;
    },
  };
}

/**
 * Writes a whole answer in Shape A on a socket no response owns, then closes it: `Connection:
 * close`, as Node's own answers to requests it cannot read.
 */
function answerRaw(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ status: 'failed', error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    // Closed once written, whatever the client does with its half.
    () => socket.destroy(),
  );
}

/**
 * Answers a request Node's HTTP parser refused (headers too large, a malformed request line or
 * header, a request that did not arrive in time) as Node would, with the same statuses, but with a
 * body in Shape A saying why. Nothing is written where an answer has begun, as Node does.
 */
function answerUnparsed(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answering = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    answerRaw(socket, 431, 'Request header fields too large (16 KB in all at most)');
  } else if (error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    answerRaw(socket, 413, 'Request chunk extensions too large');
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answerRaw(socket, 408, 'Request timeout: the request did not arrive in time (HTTP_REQUEST_TIMEOUT_MS)');
  } else {
    answerRaw(socket, 400, `Bad request: malformed HTTP (${error.code ?? 'unreadable'})`);
  }
}

/**
 * What one client address may hold of the server's connections: at most `perClient` sockets
 * (closed at once past it, so one client cannot take the global cap from everyone), and none that
 * sends nothing: Node's headers timeout only starts with a request's first byte. Counted per
 * socket, whatever it carries later (HTTP keep-alive, or a WebSocket after an upgrade), until it
 * closes; the address is the socket's peer, not X-Forwarded-For (nothing is read yet).
 */
function connectionGuard(perClient: number, firstByteMs: number): (socket: Socket) => void {
  const open = new KeyedCounts<string>();
  return (socket) => {
    const address = socket.remoteAddress ?? '';
    if (open.get(address) >= perClient) {
      socket.destroy();
      return;
    }
    open.add(address, 1);
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, firstByteMs);
    silent.unref();
    socket.once('close', () => {
      clearTimeout(silent);
      open.add(address, -1);
    });
  };
}

/** Closes a server now: no new connections, open ones cut (whatever a graceful stop left). */
function closeNow(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export interface HttpPorts {
  main: Listening;
  /** METRICS_PORT's server, when set. */
  metrics: Listening | null;
  /** Closes both now (what a graceful stop of the HTTP server left open). */
  close(): Promise<void>;
}

/**
 * Binds PORT (and METRICS_PORT) before anything else starts — main.ts does it before it even
 * loads the rest of Laurel — so a taken port fails the start at once, before the database,
 * migrations or chains. Until serveHttp() they answer that Laurel is starting (/health 200,
 * everything else 503). This module loads nothing but node:http (and the one message of
 * ../errors) for that reason.
 */
export async function bindHttpPorts(config: Config): Promise<HttpPorts> {
  const main = await listen(config, config.port, 'PORT');
  const metrics =
    config.metrics.enabled && config.metrics.port
      ? await listen(config, config.metrics.port, 'METRICS_PORT').catch(async (error: unknown) => {
          await closeNow(main.server);
          throw error;
        })
      : null;
  return {
    main,
    metrics,
    close: async () => {
      await closeNow(main.server);
      if (metrics) await closeNow(metrics.server);
    },
  };
}
