import net from 'node:net';

/**
 * A loopback port that is free right now (the OS picks it). Another process may take it before the
 * caller binds it: a server started on it retries with another port when told the address is in use.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('Could not get a free port'))));
    });
  });
}

/** Whether nothing listens on `port` right now. */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A server (PostgreSQL, anvil) that did not start; `addressInUse`: another process held its port. */
export class ServerStartError extends Error {
  override name = 'ServerStartError';
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
  }
}
