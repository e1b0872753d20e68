import type { Response } from 'express';
import type { RequestContext } from '../operations/request-context';
import { sendJson } from './json-answer';

/** Why a request failed, for its log line and the metrics (never a secret: what the client was told). */
export interface RequestFailure {
  code: string;
  message: string;
  /** The budget that refused a rate-limited request. */
  budget?: string;
}

/** Answers a failure body and notes why, for the request's log line. */
export function sendFailure(res: Response, status: number, body: object, failure: RequestFailure): void {
  res.locals.failure = failure;
  sendJson(res, status, body);
}

/** The failure noted for a request, if any. */
export function failureOf(res: Response): RequestFailure | undefined {
  return res.locals.failure as RequestFailure | undefined;
}

/** Notes the route template a request matched (a bounded label: `/v1/webhook/:id`). */
export function noteRoute(res: Response, route: string): void {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (ctx) ctx.labels.route = route;
}
