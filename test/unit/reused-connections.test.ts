/**
 * A server that closes a kept-alive connection as the next request arrives on it (the keep-alive
 * race of every HTTP client): Laurel's two outbound clients send such a request again, once, on a
 * new connection, instead of failing the call.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { RpcEndpoint } from '../../src/chain/rpc-endpoint';
import { createServerCertificate } from '../../src/modules/webhooks/certificates';
import { OutboundHttpsClient } from '../../src/outbound-https';
import { testCa } from '../helpers/test-ca';

type Server = http.Server | https.Server;

/** Answers the first request of each connection; resets the connection when a second one comes. */
function resettingSecondRequests(server: Server, body: (request: http.IncomingMessage) => string): Server {
  const served = new WeakMap<Socket, number>();
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const socket = request.socket;
    const count = (served.get(socket) ?? 0) + 1;
    served.set(socket, count);
    if (count > 1) {
      // A plain TCP connection is reset (RST); a TLS one is closed under the request.
      if ('encrypted' in socket) socket.destroy();
      else socket.resetAndDestroy();
      return;
    }
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(body(Object.assign(request, { text })));
    });
  });
  return server;
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

it('JSON-RPC calls go out again on a new connection when a reused one is reset', async () => {
  const server = resettingSecondRequests(http.createServer(), (request) => {
    const { id } = JSON.parse((request as unknown as { text: string }).text) as { id: number };
    return JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' });
  });
  servers.push(server);
  const endpoint = new RpcEndpoint('test', 1, `http://127.0.0.1:${await listening(server)}`, undefined);
  const stop = new AbortController().signal;
  try {
    for (let id = 1; id <= 3; id++) {
      expect(
        await endpoint.post({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }, 5000, stop),
      ).toEqual({
        jsonrpc: '2.0',
        id,
        result: '0x1',
      });
    }
  } finally {
    endpoint.close();
  }
});

it('webhook calls go out again on a new connection when a reused one is reset', async () => {
  const server = resettingSecondRequests(
    https.createServer(await createServerCertificate(testCa())),
    () => '{}',
  );
  servers.push(server);
  const client = await OutboundHttpsClient.create({ allowPrivateNetworks: true, userAgent: 'test' });
  const url = `https://127.0.0.1:${await listening(server)}/hook`;
  try {
    for (let i = 0; i < 3; i++) {
      const response = await client.request(url, {
        method: 'POST',
        body: '{}',
        timeoutMs: 5000,
        maxRedirects: 0,
        bodyLimit: 1024,
      });
      expect(response.status).toBe(200);
    }
  } finally {
    client.destroy();
  }
});

it('a JSON-RPC call its deadline ended on a reused connection is not sent again', async () => {
  let posts = 0;
  const server = http.createServer((request, response) => {
    posts += 1;
    if (posts > 1) return; // never answered: the caller's deadline ends the call
    request.resume().on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }));
    });
  });
  servers.push(server);
  const endpoint = new RpcEndpoint('test', 1, `http://127.0.0.1:${await listening(server)}`, undefined);
  const stop = new AbortController().signal;
  const send = (id: number, timeoutMs: number) =>
    endpoint.post({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: ['0x'] }, timeoutMs, stop);
  const requests = jest.spyOn(http, 'request');
  try {
    await send(1, 5000);
    await expect(send(2, 200)).rejects.toThrow(/did not answer in time/);
    // The destroyed request reports its error before it closes: a resend would have begun by then.
    const timedOut = requests.mock.results[1].value as http.ClientRequest;
    if (!timedOut.closed) await new Promise((resolve) => timedOut.on('close', resolve));
    expect(requests).toHaveBeenCalledTimes(2);
  } finally {
    requests.mockRestore();
    endpoint.close();
    server.closeAllConnections();
  }
});
