/**
 * The published contract, checked against real answers: every answer of a path and method of
 * openapi.json must have a status the document lists for them, and a body valid against that
 * status's schema; a documented path asked with another method must answer 405 with `Allow`
 * naming the documented methods. Success bodies are checked closed: a field the document does not
 * name fails (the published schemas stay open, so that a field added later breaks no client).
 *
 * Validator: ajv's JSON Schema 2020-12 class (OpenAPI 3.1's schema dialect) with ajv-formats, over
 * the committed document; each schema is compiled once per test worker, when first needed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { takesBody } from '../../src/http/request-reading';

type Json = Record<string, unknown>;
type Schema = Json;

interface DocumentedResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: Schema }>;
}

interface DocumentedOperation {
  parameters?: { name: string; in: 'path' | 'query'; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, DocumentedResponse>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocumentedOperation>>;
  components: { schemas: Record<string, Schema> };
}

/** One answer as a client saw it. */
export interface Answer {
  method: string;
  /** The path asked, with its query string (`/v1/leaderboard?chain=local`). */
  url: string;
  status: number;
  headers: Headers;
  /** The body as JSON (null when empty). */
  body: unknown;
}

const DOCUMENT_ID = 'https://laurel.invalid/openapi.json';

/**
 * Statuses answered before a request is routed to its method: a malformed path parameter, the key
 * check, the body's reading.
 */
const PRE_ROUTING = [400, 401, 413, 415, 429, 503];
/** A body too large, or not JSON. */
const BODY_REFUSALS = [413, 415];

export const openApiFile = path.resolve(__dirname, '../../openapi.json');

/** An object schema that names its properties and says nothing of others: closed for the check. */
function isOpenObject(schema: Schema): boolean {
  return (
    typeof schema.properties === 'object' &&
    !('additionalProperties' in schema) &&
    !('unevaluatedProperties' in schema)
  );
}

/** Closes every open object schema in `schema`, following `$ref`s into the components (once each). */
function close(schema: unknown, components: Record<string, Schema>, closed: Set<string>): void {
  if (Array.isArray(schema)) return schema.forEach((item) => close(item, components, closed));
  if (typeof schema !== 'object' || schema === null) return;
  const object = schema as Schema;
  if (typeof object.$ref === 'string') {
    const name = object.$ref.split('/').pop()!;
    if (!closed.has(name)) {
      closed.add(name);
      close(components[name], components, closed);
    }
    return;
  }
  if (isOpenObject(object)) object.unevaluatedProperties = false;
  for (const value of Object.values(object)) close(value, components, closed);
}

/** The `{name}` templates of the document as the router matches them: literal paths first. */
function templatesOf(document: OpenApiDocument): { template: string; pattern: RegExp }[] {
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${template
        .split(/(\{\w+\})/)
        .map((part) => (/^\{\w+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('')}$`,
      // Express routes ignore case.
      'i',
    ),
  }));
  const literal = templates.filter(({ template }) => !template.includes('{'));
  return [...literal, ...templates.filter(({ template }) => template.includes('{'))];
}

export class OpenApiContract {
  readonly document: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp }[];
  /** `GET /v1/leaderboard 200`: every documented path, method and status an answer was checked against. */
  readonly seen = new Set<string>();

  constructor(document: OpenApiDocument) {
    this.document = document;
    this.templates = templatesOf(document);
    const checked = structuredClone(document) as OpenApiDocument & Json;
    const closed = new Set<string>();
    for (const operations of Object.values(checked.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (status.startsWith('2')) close(response.content, checked.components.schemas, closed);
        }
      }
    }
    // Strict, but for `required` in a `oneOf` branch of its object (`badge_name` or `badge_id`).
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    addFormats(this.ajv);
    // OpenAPI's annotation keyword, and the document's own fields: ajv compiles the document's root
    // (as the schema that `$ref`s point into), where they are no JSON Schema keywords.
    for (const keyword of ['example', ...Object.keys(checked)]) this.ajv.addKeyword({ keyword });
    this.ajv.addSchema({ ...checked, $id: DOCUMENT_ID }, DOCUMENT_ID);
  }

  /**
   * The documented path template a request path falls under, if any, as Express routes it:
   * `/api/v1/…` is `/v1/…`, a trailing slash and case do not count.
   */
  templateOf(pathname: string): string | undefined {
    const versioned = /^\/api\/v1\//i.test(pathname) ? pathname.slice('/api'.length) : pathname;
    const trimmed = versioned.length > 1 ? versioned.replace(/\/$/, '') : versioned;
    return this.templates.find(({ pattern }) => pattern.test(trimmed))?.template;
  }

  /** The compiled schema at a JSON pointer of the document. */
  validator(pointer: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /**
   * Checks one answer against the document; throws an error that says what does not match. An
   * answer of an undocumented path (GraphQL, probes, the reference itself) is not the document's.
   */
  check(answer: Answer): void {
    const { pathname } = new URL(answer.url, 'http://laurel.invalid');
    const template = this.templateOf(pathname);
    if (!template) return;
    const operations = this.document.paths[template];
    const method = answer.method.toLowerCase();
    const asked = `${answer.method.toUpperCase()} ${pathname}`;
    const fail = (problem: string): never => {
      throw new Error(
        `${asked} answered ${answer.status}: ${problem}\n  body: ${JSON.stringify(answer.body)?.slice(0, 1000)}`,
      );
    };
    const documented = Object.keys(operations);
    const operation = operations[method] ?? (method === 'head' ? operations.get : undefined);
    if (!operation) {
      // Refused before routing (the key check of {base_url} paths, a body too large or not JSON):
      // answered as the path's documented operations answer that refusal.
      const before = Object.keys(operations).find(
        (name) => PRE_ROUTING.includes(answer.status) && operations[name].responses[String(answer.status)],
      );
      if (before) return this.checkBody(answer, template, before, fail);
      // A body on a path whose methods take none is still read (and refused) before routing.
      if (takesBody(answer.method) && BODY_REFUSALS.includes(answer.status)) {
        const validate = this.validator(['components', 'schemas', 'FailureA']);
        if (!validate(answer.body)) fail(`not Shape A: ${this.ajv.errorsText(validate.errors)}`);
        return;
      }
      const allow = documented.map((name) => name.toUpperCase());
      if (allow.includes('GET')) allow.push('HEAD');
      if (answer.status !== 405) fail(`${answer.method} is not documented on ${template}: expected 405`);
      const answered = (answer.headers.get('allow') ?? '').split(/,\s*/).sort();
      if (answered.join() !== allow.sort().join()) fail(`Allow should be ${allow.join(', ')}`);
      this.seen.add(`${answer.method.toUpperCase()} ${template} 405`);
      return;
    }
    const response = operation.responses[String(answer.status)];
    if (!response) {
      fail(
        `${answer.status} is not documented for ${method.toUpperCase()} ${template} (documented: ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    if (answer.status === 429 && response.headers?.['Retry-After'] && !answer.headers.get('retry-after')) {
      fail('a 429 without Retry-After');
    }
    this.seen.add(`${method.toUpperCase()} ${template} ${answer.status}`);
    if (method !== 'head') this.checkBody(answer, template, method, fail);
  }

  private checkBody(
    answer: Answer,
    template: string,
    method: string,
    fail: (problem: string) => never,
  ): void {
    if (!this.document.paths[template][method].responses[String(answer.status)].content) return;
    const type = answer.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) fail(`content type ${type}, documented application/json`);
    const validate = this.validator([
      'paths',
      template,
      method,
      'responses',
      String(answer.status),
      'content',
      'application/json',
      'schema',
    ]);
    if (!validate(answer.body)) {
      fail(`not the documented body: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`);
    }
  }

  /** Every documented operation, as `METHOD template`. */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([template, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${template}`),
    );
  }
}

let committed: OpenApiContract | undefined;

/** The contract of the committed openapi.json, loaded and compiled once per test worker. */
export function openApiContract(): OpenApiContract {
  committed ??= new OpenApiContract(JSON.parse(readFileSync(openApiFile, 'utf8')) as OpenApiDocument);
  return committed;
}
