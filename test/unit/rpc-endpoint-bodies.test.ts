/**
 * A JSON-RPC provider's answers are read whole, as UTF-8: ASCII bodies (nearly all of them) take
 * the cheap Latin-1 copy, any other byte the full decoder, even when a character is split between
 * two chunks of the body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcEndpoint } from '../../src/chain/rpc-endpoint';

const results: Record<number, string> = {
  1: '0x' + 'ab'.repeat(40_000),
  2: 'exécution annulée: 報酬 ✓ 🎖',
};

let server: http.Server;
let endpoint: RpcEndpoint;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const { id } = JSON.parse(text) as { id: number };
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result: results[id] }));
      // Cut inside the first multi-byte character (if any): the decoder must see the whole body.
      const firstNonAscii = body.findIndex((byte) => byte > 0x7f);
      const cut = firstNonAscii === -1 ? body.length >> 1 : firstNonAscii + 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(body.subarray(0, cut));
      setImmediate(() => response.end(body.subarray(cut)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = new RpcEndpoint(
    'test',
    1,
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    undefined,
  );
});

afterAll(() => {
  endpoint.close();
  server.close();
});

it.each([
  [1, 'ASCII'],
  [2, 'UTF-8 with multi-byte characters split between chunks'],
])('answer %i (%s) reads back exactly', async (id) => {
  const reply = await endpoint.post(
    { jsonrpc: '2.0', id, method: 'test', params: [] },
    5_000,
    new AbortController().signal,
  );
  expect(reply).toEqual({ jsonrpc: '2.0', id, result: results[id] });
});
