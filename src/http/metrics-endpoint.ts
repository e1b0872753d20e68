import type { RequestHandler } from 'express';
import type { LaurelMetrics } from '../metrics';
import { sendFailure } from './rest';

/** Loopback addresses as Node reports peers (IPv4, IPv6, IPv4-mapped IPv6). */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * GET /metrics: the Prometheus text exposition. `open`: to anyone (a port of its own, METRICS_PORT);
 * otherwise (the main port) to a loopback peer — the socket's, not X-Forwarded-For — or to a client
 * sending `Authorization: Bearer <METRICS_TOKEN>`.
 */
export function metricsEndpoint(
  metrics: LaurelMetrics,
  access: { open: boolean; token?: string },
): RequestHandler {
  const bearer = access.token ? `Bearer ${access.token}` : null;
  return async (req, res, next) => {
    const allowed =
      access.open ||
      LOOPBACK.test(req.socket.remoteAddress ?? '') ||
      (bearer !== null && req.header('authorization') === bearer);
    if (!allowed) {
      const error =
        'Metrics are served to loopback clients on this port: scrape from this machine, set METRICS_PORT, or send Authorization: Bearer <METRICS_TOKEN>';
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
