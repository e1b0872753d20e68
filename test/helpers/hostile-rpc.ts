/**
 * A hostile JSON-RPC provider for tests: an HTTP server in front of a node (anvil) that behaves,
 * as told at run time, like the hosted providers Laurel meets on real networks: slow, failing with
 * 5xx or reset connections, throttling (HTTP 429 with Retry-After, JSON-RPC -32005), refusing wide
 * or busy eth_getLogs ranges with their providers' wordings, lagging behind the head, or dark
 * (refusing connections, or taking requests and never answering). JSON-RPC batches are handled call
 * by call, as providers do.
 *
 * Shares (0..1) are dealt evenly, not at random (a share of 0.25 fails every fourth request), so a
 * test sees the same sequence on every run.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BLOCK_PARAMETER } from '../../src/chain/rpc-requests';

export interface HostileBehaviour {
  /** Added before every answer. */
  latencyMs: number;
  /** Share of HTTP requests answered 503. */
  serverErrorShare: number;
  /** Share of HTTP requests whose connection is reset without an answer. */
  resetShare: number;
  /** Share of HTTP requests answered 429 (with Retry-After when retryAfterSeconds is set). */
  throttleShare: number;
  retryAfterSeconds: number | null;
  /** Share of JSON-RPC calls (each call of a batch) answered `{code: -32005, message: 'limit exceeded'}`. */
  limitErrorShare: number;
  /** eth_getLogs over more blocks than this is refused (QuickNode's wording: "limited to a N range"). */
  getLogsMaxBlocks: number | null;
  /**
   * eth_getLogs answering more logs than this is refused: Infura's wording (-32005 "query returned
   * more than N results") or Alchemy's (-32602 with "this block range should work: [from, to]").
   */
  getLogsMaxResults: number | null;
  getLogsResultsStyle: 'infura' | 'alchemy';
  /** Its head is this many blocks behind the node's (eth_blockNumber, 'latest', 'pending', receipts...). */
  lagBlocks: number;
  /** `refuse`: nothing listens (connection refused); `hang`: requests are taken and never answered. */
  dark: false | 'refuse' | 'hang';
  /** JSON-RPC calls of these methods are not forwarded: answered after `afterMs` with this error. */
  refusedCalls: Record<string, { afterMs: number; code: number; message: string }>;
}

/** A proxy that only forwards. */
export const PERFECT: HostileBehaviour = {
  latencyMs: 0,
  serverErrorShare: 0,
  resetShare: 0,
  throttleShare: 0,
  retryAfterSeconds: null,
  limitErrorShare: 0,
  getLogsMaxBlocks: null,
  getLogsMaxResults: null,
  getLogsResultsStyle: 'infura',
  lagBlocks: 0,
  dark: false,
  refusedCalls: {},
};

export interface HostileRpc {
  url: string;
  behaviour: Readonly<HostileBehaviour>;
  /** Changes how it behaves from the next request on (dark: listens or stops listening). */
  set(changes: Partial<HostileBehaviour>): Promise<void>;
  /** Calls received per JSON-RPC method, answered or not. */
  calls(method?: string): number;
  /** The methods of each HTTP request received, in order (a JSON-RPC batch is one request). */
  requests(): readonly (readonly string[])[];
  close(): Promise<void>;
}

interface Call {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

type Reply = { jsonrpc: '2.0'; id: Call['id'] } & (
  { result: unknown } | { error: { code: number; message: string } }
);

const hex = (n: number) => `0x${n.toString(16)}`;
const TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);

/** Deals a share evenly: true `share` of the times it is asked. */
class EvenShare {
  private credit = 0;
  take(share: number): boolean {
    if (share <= 0) return false;
    this.credit += share;
    if (this.credit < 1) return false;
    this.credit -= 1;
    return true;
  }
}

export async function startHostileRpc(
  target: string,
  initial: Partial<HostileBehaviour> = {},
): Promise<HostileRpc> {
  const behaviour: HostileBehaviour = { ...PERFECT, ...initial };
  const counts = new Map<string, number>();
  const requests: string[][] = [];
  const shares = {
    reset: new EvenShare(),
    serverError: new EvenShare(),
    throttle: new EvenShare(),
    limit: new EvenShare(),
  };
  const sockets = new Set<Socket>();
  const hanging = new Set<http.ServerResponse>();

  const upstream = async (method: string, params: unknown[]): Promise<Reply> => {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as Reply;
  };

  const answer = async (call: Call): Promise<Reply> => {
    const base = { jsonrpc: '2.0' as const, id: call.id };
    const error = (code: number, message: string): Reply => ({ ...base, error: { code, message } });
    if (shares.limit.take(behaviour.limitErrorShare)) return error(-32005, 'limit exceeded');
    const refused = behaviour.refusedCalls[call.method];
    if (refused) {
      await new Promise((resolve) => setTimeout(resolve, refused.afterMs));
      return error(refused.code, refused.message);
    }
    let params = [...(call.params ?? [])];
    let lagged: number | null = null;
    if (behaviour.lagBlocks > 0) {
      const head = Number(((await upstream('eth_blockNumber', [])) as { result: string }).result);
      lagged = Math.max(0, head - behaviour.lagBlocks);
      if (call.method === 'eth_blockNumber') return { ...base, result: hex(lagged) };
      const position = BLOCK_PARAMETER[call.method];
      if (position !== undefined) {
        const block = params[position];
        if (block === undefined || (typeof block === 'string' && TAGS.has(block)))
          params[position] = hex(lagged);
        else if (call.method === 'eth_getBlockByNumber' && Number(block) > lagged)
          return { ...base, result: null };
      }
    }
    if (call.method === 'eth_getLogs') {
      const filter = { ...(params[0] as Record<string, unknown>) };
      const number = (value: unknown, fallback: number) =>
        value === undefined || (typeof value === 'string' && TAGS.has(value)) ? fallback : Number(value);
      const ceiling = lagged ?? Number.MAX_SAFE_INTEGER;
      const from = number(filter.fromBlock, ceiling);
      const to = Math.min(ceiling, number(filter.toBlock, ceiling));
      if (from > to) return { ...base, result: [] };
      if (behaviour.getLogsMaxBlocks !== null && to - from + 1 > behaviour.getLogsMaxBlocks) {
        return error(
          -32602,
          `eth_getLogs is limited to a ${behaviour.getLogsMaxBlocks.toLocaleString('en-US')} range`,
        );
      }
      params = [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }];
      const reply = await upstream(call.method, params);
      const logs = 'result' in reply ? (reply.result as { blockNumber: string }[]) : null;
      const limit = behaviour.getLogsMaxResults;
      if (logs && limit !== null && logs.length > limit) {
        if (behaviour.getLogsResultsStyle === 'infura') {
          return error(-32005, `query returned more than ${limit} results`);
        }
        const fits = Math.max(from, Number(logs[limit].blockNumber) - 1);
        return error(
          -32602,
          'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no ' +
            'limit on the response size, or you can request any block range with a cap of 10K logs in the ' +
            `response. Based on your parameters and the response size limit, this block range should work: [${hex(from)}, ${hex(fits)}]`,
        );
      }
      return { ...reply, id: call.id };
    }
    const reply = { ...(await upstream(call.method, params)), id: call.id };
    if (lagged !== null && 'result' in reply && reply.result && typeof reply.result === 'object') {
      const mined = (reply.result as { blockNumber?: string | null }).blockNumber;
      const unseen = mined !== undefined && mined !== null && Number(mined) > lagged;
      if (unseen && call.method === 'eth_getTransactionReceipt') return { ...reply, result: null };
      if (unseen && call.method === 'eth_getTransactionByHash') {
        return {
          ...reply,
          result: { ...reply.result, blockNumber: null, blockHash: null, transactionIndex: null },
        };
      }
    }
    return reply;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        let body: Call | Call[];
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
        } catch {
          res.writeHead(400).end();
          return;
        }
        const calls = Array.isArray(body) ? body : [body];
        for (const call of calls) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
        requests.push(calls.map((call) => call.method));
        if (behaviour.dark === 'hang') {
          hanging.add(res);
          return;
        }
        if (shares.reset.take(behaviour.resetShare)) {
          req.socket.destroy();
          return;
        }
        if (behaviour.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, behaviour.latencyMs));
        if (shares.serverError.take(behaviour.serverErrorShare)) {
          res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
          return;
        }
        if (shares.throttle.take(behaviour.throttleShare)) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (behaviour.retryAfterSeconds !== null)
            headers['retry-after'] = String(behaviour.retryAfterSeconds);
          res.writeHead(429, headers).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: 429, message: 'Too Many Requests' },
            }),
          );
          return;
        }
        const replies = await Promise.all(calls.map(answer));
        if (!res.destroyed) {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(Array.isArray(body) ? replies : replies[0]));
        }
      })().catch(() => {
        if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  const releaseHanging = () => {
    for (const res of hanging) res.socket?.destroy();
    hanging.clear();
  };

  const port = await listen(0);
  if (behaviour.dark === 'refuse') await stopListening();
  return {
    url: `http://127.0.0.1:${port}`,
    behaviour,
    async set(changes) {
      const was = behaviour.dark;
      Object.assign(behaviour, changes);
      if (was === 'hang' && behaviour.dark !== 'hang') releaseHanging();
      if (was !== 'refuse' && behaviour.dark === 'refuse') await stopListening();
      if (was === 'refuse' && behaviour.dark !== 'refuse') await listen(port);
    },
    requests: () => requests,
    calls: (method) =>
      method === undefined ? [...counts.values()].reduce((sum, n) => sum + n, 0) : (counts.get(method) ?? 0),
    async close() {
      releaseHanging();
      if (server.listening) await stopListening();
    },
  };
}
