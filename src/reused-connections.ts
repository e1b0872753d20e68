import type { ClientRequest } from 'node:http';

/**
 * A request that failed on a kept-alive connection it reused, with the connection reset or closed
 * before any answer: most often the server closed the idle connection as the request went out
 * (the keep-alive race every HTTP client meets; Node documents `reusedSocket` for this). Laurel's
 * calls are safe to send again (JSON-RPC reads and broadcasts of signed transactions, webhook
 * calls with their idempotency key), so they are, once, on a new connection, instead of counting
 * as a failure of the provider or the receiver.
 */
export function failedOnReusedConnection(request: ClientRequest, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}
