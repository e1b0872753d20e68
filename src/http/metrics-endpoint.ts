import type { RequestHandler } from 'express';
import { isLoopbackHost } from '../config';
import type { LaurelMetrics } from '../metrics';
import { sendFailure } from '../fast-paths/answers';

/** Headers a reverse proxy adds: a request that carries one did not come from this machine's own scraper. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/**
 * GET /metrics: the Prometheus text exposition. `open`: to anyone (a port of its own, METRICS_PORT);
 * otherwise (the main port) to a client sending `Authorization: Bearer <METRICS_TOKEN>`, or, with
 * `trustLoopback` (no TRUST_PROXY: Laurel is not set up behind a proxy), to a loopback peer whose
 * request names no forwarded client. A reverse proxy on the same host connects from loopback too:
 * its requests carry X-Forwarded-For (or Forwarded, X-Real-IP), and with TRUST_PROXY set the
 * socket's peer says nothing of the client, so loopback alone is never enough.
 */
export function metricsEndpoint(
  metrics: LaurelMetrics,
  access: { open: boolean; token?: string; trustLoopback?: boolean },
): RequestHandler {
  const bearer = access.token ? `Bearer ${access.token}` : null;
  return async (req, res, next) => {
    const allowed =
      access.open ||
      (access.trustLoopback === true &&
        isLoopbackHost(req.socket.remoteAddress ?? '') &&
        FORWARDING_HEADERS.every((name) => req.headers[name] === undefined)) ||
      (bearer !== null && req.header('authorization') === bearer);
    if (!allowed) {
      const error =
        'Metrics are served on this port to this machine’s own clients (not through a proxy) or with Authorization: Bearer <METRICS_TOKEN>; or set METRICS_PORT';
      sendFailure(res, 403, { status: 'failed', error }, { code: 'forbidden', message: error });
      return;
    }
    try {
      const text = await metrics.exposition();
      res.type(metrics.contentType).send(text);
    } catch (error) {
      next(error);
    }
  };
}
