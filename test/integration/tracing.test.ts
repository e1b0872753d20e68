import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { HDNodeWallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { ANVIL_MNEMONIC } from '../helpers/chain';
import { request } from '../helpers/laurel';
import {
  preparedDataDir,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT, one build is one trace: the HTTP request, the operation, its
 * SQL and its RPC calls, exported over OTLP/HTTP (JSON) to a receiver the test runs.
 */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

let receiver: Server;
const spans: OtlpSpan[] = [];
let dataDir: string;
let laurel: StartedLaurel;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const resource of payload.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  dataDir = await preparedDataDir();
  laurel = await startLaurelProcess(dataDir, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    // No indexer: its block reads would share the build's JSON-RPC batches now and then (calls of
    // the same 2 ms go out as one), and a shared batch's span is in the trace of whoever opened it.
    LAUREL_ROLES: 'api,worker',
  });
}, 120_000);

afterAll(async () => {
  if (laurel) await stopLaurelProcess(laurel, 'SIGTERM');
  receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("exports one build's trace: HTTP, the operation, SQL and the chain's RPC", async () => {
  const wallet = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/3");
  const apiKey = await issueApiKey(laurel.url, wallet);
  const built = await request(laurel.url, 'POST', '/v1/app/new', {
    apiKey,
    body: { chain: 'local', name: 'Traced' },
    headers: { 'X-Request-Id': 'traced-build' },
  });
  expect(built.status).toBe(200);

  const trace = await waitUntil(
    'the build’s spans',
    () => {
      const operation = spans.find((span) => span.name === 'operation createApp');
      if (!operation) return undefined;
      const inTrace = spans.filter((span) => span.traceId === operation.traceId);
      // The server span, Express, the operation, SQL (the nonce reservation) and the RPC batch
      // (estimate, fees and nonce: one JSON-RPC batch, one HTTP call).
      const names = inTrace.map((span) => span.name);
      const complete =
        names.includes('POST /v1/app/new') &&
        names.some((name) => name.startsWith('middleware - ')) &&
        names.some((name) => name.startsWith('pg.query')) &&
        names.includes('POST');
      return complete ? { operation, inTrace } : undefined;
    },
    30_000,
  ).catch((error: Error) => {
    // Which spans came, and in which traces: what a failure needs to be understood.
    const seen = spans.map((span) => `${span.name} (${span.traceId.slice(0, 8)})`);
    throw new Error(`${error.message}; spans received: ${seen.join(', ')}`);
  });
  const requestId = trace.operation.attributes?.find((attribute) => attribute.key === 'laurel.request_id');
  expect(requestId?.value).toEqual({ stringValue: 'traced-build' });
  // Every span of the trace descends from its root: one trace for the whole request.
  const ids = new Set(trace.inTrace.map((span) => span.spanId));
  const roots = trace.inTrace.filter((span) => !span.parentSpanId || !ids.has(span.parentSpanId));
  expect(roots).toHaveLength(1);
}, 60_000);
