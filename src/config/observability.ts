/** What the process tells its operators: logs, Prometheus metrics and OpenTelemetry traces. */
import { z } from 'zod';
import type { Parsed } from './values';

export const observabilityVariables = {
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('least severe log level written; `debug` shows every step, including routine job retries'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe('`auto`: readable lines (pino-pretty) on a terminal, JSON lines otherwise'),
  METRICS: z
    .enum(['on', 'off'])
    .default('on')
    .describe('`on`: Prometheus metrics (`laurel_*`) at `/metrics`; `off`: none are recorded or served'),
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe(
      'serve `/metrics` on this port (every process, whatever its roles, on `HOST`), off the API port; unset: `/metrics` on the main port, for loopback clients or with `METRICS_TOKEN`',
    ),
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe(
      'lets other clients than loopback read `/metrics` on the main port with `Authorization: Bearer <token>` (at least 16 characters)',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe(
      'an OpenTelemetry collector (OTLP over HTTP, e.g. `http://127.0.0.1:4318`): traces of HTTP, GraphQL, operations, SQL, RPC and jobs are exported to it; unset: no tracing code is loaded. The SDK reads the other `OTEL_*` variables itself',
    ),
};

export interface ObservabilityConfig {
  logLevel: Parsed<typeof observabilityVariables>['LOG_LEVEL'];
  /** `auto`: human-readable lines on a terminal, JSON otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  metrics: {
    enabled: boolean;
    /** A port of their own; absent: /metrics on the main port (loopback or token). */
    port?: number;
    token?: string;
  };
}

export function observabilityConfig(e: Parsed<typeof observabilityVariables>): ObservabilityConfig {
  return {
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    metrics: { enabled: e.METRICS === 'on', port: e.METRICS_PORT, token: e.METRICS_TOKEN },
  };
}
