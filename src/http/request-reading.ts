import { isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import express, { type RequestHandler, type Response } from 'express';
import { ValidationError, type DocumentedFailure } from '../errors';
import { sendFailure } from '../fast-paths/answers';
import { holdUnreadableBody } from './rest';

/**
 * What can go wrong reading a request before an operation sees it: its body (not JSON, too large,
 * unreadable) and its URL (a malformed percent-encoding).
 */

/** Media types parsed as JSON: application/json and any application/…+json. */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** The largest body read. */
const BODY_LIMIT = '1mb';

/** Methods whose body nothing reads: it is neither parsed nor refused. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export const BODY_TOO_LARGE: DocumentedFailure = {
  status: 413,
  codes: ['body_too_large'],
  description: '`Request body too large (limit 1 MB)`',
};

export const UNSUPPORTED_BODY: DocumentedFailure = {
  status: 415,
  codes: ['unsupported_media_type'],
  description:
    'The body is not `application/json` (or `application/…+json`), or its charset or `Content-Encoding` is not one Laurel reads',
};

export const MALFORMED_URL: DocumentedFailure = {
  status: 400,
  codes: ['bad_request'],
  description: '`Malformed URL: invalid percent-encoding` in a path parameter',
};

/** Whether requests of this method have a body Laurel reads (POST, PUT, PATCH). */
export function takesBody(method: string): boolean {
  return !BODYLESS_METHODS.has(method.toUpperCase());
}

/**
 * A library's 4xx error (body-parser, the router, static files): its status, a text fit to show
 * (a 400 about the body always is: a JSON syntax error, a broken gzip stream, a length that does
 * not match), its type.
 */
function libraryClientError(error: unknown): { status: number; text: string; type?: unknown } | null {
  const { status, statusCode, expose, message, type } = (error ?? {}) as {
    status?: unknown;
    statusCode?: unknown;
    expose?: unknown;
    message?: unknown;
    type?: unknown;
  };
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || code < 400 || code > 499) return null;
  const shown = expose === true || (code === 400 && error instanceof Error);
  const text = shown && typeof message === 'string' ? message : STATUS_CODES[code];
  return { status: code, text: text ?? 'client error', type };
}

/**
 * A client's mistake that a library raised while reading the request (a malformed
 * percent-encoding, a static file's bad range): its 4xx status and a message fit to show, never a
 * 500.
 */
export function clientErrorOf(error: unknown): { status: number; message: string } | null {
  if (error instanceof URIError) {
    return { status: MALFORMED_URL.status, message: 'Malformed URL: invalid percent-encoding' };
  }
  const known = libraryClientError(error);
  return known && { status: known.status, message: `Bad request: ${known.text}` };
}

function refuse(res: Response, failure: DocumentedFailure, message: string): void {
  sendFailure(res, failure.status, { status: 'failed', error: message }, { code: failure.codes[0], message });
}

/**
 * Bodies are UTF-8: body-parser would decode any `utf-…` charset it is told (UTF-16, UTF-32), and
 * put U+FFFD in place of bytes that are not UTF-8. The first is refused as an unsupported charset
 * (415), the second as an unreadable body (400), with body-parser's own error fields.
 */
function requireUtf8(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  if (charset.toLowerCase() !== 'utf-8') {
    throw Object.assign(new Error(`unsupported charset "${charset.toUpperCase()}"`), {
      status: 415,
      type: 'charset.unsupported',
    });
  }
  if (!isUtf8(body)) {
    throw Object.assign(new Error('the body is not UTF-8'), { status: 400, type: 'encoding.invalid' });
  }
}

/**
 * Reads JSON bodies of POST, PUT and PATCH requests, whatever JSON value they hold (the operation's
 * schema refuses what is not an object, in zod's words). A body that is not JSON, or cannot be read
 * (a broken gzip stream, a length that does not match), is kept for the route to answer in its own
 * validation shape, after the key check (GraphQL answers it its own way). Too large: 413; not JSON
 * by its content type, charset or encoding: 415 (both Shape A, before routing).
 */
export function readJsonBody(): RequestHandler {
  const parse = express.json({ limit: BODY_LIMIT, type: JSON_TYPES, strict: false, verify: requireUtf8 });
  return (req, res, next) => {
    if (!takesBody(req.method)) return next();
    const length = Number(req.headers['content-length'] ?? 0);
    const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
    if (hasBody && !req.is(JSON_TYPES)) {
      const type = JSON.stringify(req.headers['content-type'] ?? '(none)');
      refuse(res, UNSUPPORTED_BODY, `Unsupported content type ${type}: send the body as application/json`);
      return;
    }
    parse(req, res, (caught?: unknown) => {
      const failure = caught === undefined ? null : libraryClientError(caught);
      if (!failure) return next(caught);
      if (failure.status === BODY_TOO_LARGE.status) {
        return refuse(res, BODY_TOO_LARGE, 'Request body too large (limit 1 MB)');
      }
      if (failure.status === UNSUPPORTED_BODY.status) {
        return refuse(res, UNSUPPORTED_BODY, `Unsupported body: ${failure.text}`);
      }
      const malformed = failure.type === 'entity.parse.failed';
      const issue = malformed
        ? { code: 'invalid_json', path: [], message: `Malformed JSON body: ${failure.text}` }
        : { code: 'invalid_body', path: [], message: `Unreadable body: ${failure.text}` };
      holdUnreadableBody(res, new ValidationError([issue]));
      next();
    });
  };
}
