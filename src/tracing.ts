/**
 * Optional OpenTelemetry tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, the official Node SDK
 * exports traces over OTLP/HTTP of incoming HTTP requests, Express routes, GraphQL operations, SQL
 * (node-postgres, which Prisma's adapter uses too), outgoing HTTP and fetch (RPC calls), plus
 * Laurel's own spans of operations and jobs (traced()). Unset: no tracing module is loaded and
 * traced() calls the function as it is. Imported first by main.ts: the instrumentations patch
 * modules as they load.
 */
import type { Span } from '@opentelemetry/api';

type Tracer = import('@opentelemetry/api').Tracer;

let tracer: Tracer | null = null;
let shutdown = (): Promise<void> => Promise.resolve();
let nameRoute = (_route: string): void => undefined;

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  // require, not import: these load only when tracing is on.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { GraphQLInstrumentation } =
    require('@opentelemetry/instrumentation-graphql') as typeof import('@opentelemetry/instrumentation-graphql');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'laurel',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new GraphQLInstrumentation({ mergeItems: true }),
      new PgInstrumentation(),
    ],
  });
  const { getRPCMetadata, RPCType } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  sdk.start();
  tracer = api.trace.getTracer('laurel');
  shutdown = () => sdk.shutdown();
  // What the Express instrumentation does for a route of Express's routers: the HTTP server span
  // is named `<method> <route>` when it ends.
  nameRoute = (route) => {
    const metadata = getRPCMetadata(api.context.active());
    if (metadata?.type === RPCType.HTTP) metadata.route = route;
  };
}

/**
 * Names the current HTTP request's server span after its route (`POST /v1/app/new`) when tracing
 * is on: Laurel's routes are dispatched by its route table (src/fast-paths/route-table.ts), where the
 * Express instrumentation cannot see them.
 */
export function nameTracedRoute(route: string): void {
  nameRoute(route);
}

/** Runs `work` in a span named `name` when tracing is on; otherwise just runs it. */
export function traced<T>(
  name: string,
  attributes: Record<string, string | number>,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracer) return work();
  return tracer.startActiveSpan(name, { attributes }, async (span: Span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: 2 });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sends the spans still buffered (before the process exits). */
export function flushTraces(): Promise<void> {
  return shutdown();
}
