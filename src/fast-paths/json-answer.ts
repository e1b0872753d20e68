import type { Response } from 'express';

/**
 * Answers `body` as JSON: what Express's `res.status().json()` sends (the same headers and bytes;
 * Node leaves the body out of a HEAD answer), without its per-answer content-type parsing and
 * formatting and its freshness check (answers are `no-store`, with no ETag).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
