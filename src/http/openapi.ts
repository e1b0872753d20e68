import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { z } from 'zod';
import { DATABASE_UNAVAILABLE, SHUTTING_DOWN, type DocumentedFailure } from '../errors';
import {
  failureBodySchema,
  INTERNAL_ERROR,
  STATUS_FAILED_BODY,
  validationBodySchema,
  type ErrorShapes,
} from '../operations/error-shapes';
import { inputShape, unwrapField } from '../operations/graphql-args';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_IN_PROGRESS,
  IDEMPOTENCY_KEY_REUSED,
  takesIdempotencyKey,
} from '../operations/idempotency';
import { operationReferencedBy, READ_ONLY_KEY, type OperationDefinition } from '../operations/operation';
import type { ApiModule, DeclaredRoute } from '../operations/routes';
import { DEFAULT_WEBHOOK_SIGNATURE_HEADER } from '../config/webhooks';
import { KEY_CHECK_FAILURES } from './authenticate';
import { registerWebhookCalls } from './openapi-webhooks';
import { BODY_TOO_LARGE, MALFORMED_URL, takesBody, UNSUPPORTED_BODY } from './request-reading';

type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  Decimal: { type: 'string', description: 'decimal amount in formatted units' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object' },
  JSON: {},
};

/**
 * The fields GraphQL computes with a field resolver (`LeaderboardEntryInfo.profile`), as
 * `Type.field`. A REST body is the operation's result as JSON: these are not in it.
 */
function computedFields(): Set<string> {
  const storage = getMetadataStorage();
  const typeNames = new Map<unknown, string>(storage.objectTypes.map((type) => [type.target, type.name]));
  return new Set(
    storage.fieldResolvers.flatMap((resolver) => {
      const typeName = typeNames.get(resolver.getObjectType?.());
      return typeName ? [`${typeName}.${resolver.schemaName}`] : [];
    }),
  );
}

/** JSON Schemas of GraphQL output types as REST answers them; object types become components. */
class OutputSchemas {
  readonly components: Record<string, JsonSchema> = {};
  private readonly computed = computedFields();

  of(type: GraphQLOutputType): JsonSchema {
    if (isNonNullType(type)) return this.of(type.ofType);
    if (isListType(type)) return { type: 'array', items: this.of(type.ofType) };
    const named = getNamedType(type);
    if (isScalarType(named)) return SCALARS[named.name] ?? {};
    if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((value) => value.name) };
    if (!isObjectType(named)) throw new Error(`no JSON Schema for GraphQL type ${named.name}`);
    if (!this.components[named.name]) {
      this.components[named.name] = {}; // a placeholder first: types may refer to themselves
      const fields = Object.values(named.getFields()).filter(
        (field) => !this.computed.has(`${named.name}.${field.name}`),
      );
      this.components[named.name] = {
        type: 'object',
        ...(named.description ? { description: named.description } : {}),
        properties: Object.fromEntries(
          fields.map((field) => {
            const schema = this.of(field.type);
            const property = isNonNullType(field.type) ? schema : { anyOf: [schema, { type: 'null' }] };
            return [
              field.name,
              field.description ? { ...property, description: field.description } : property,
            ];
          }),
        ),
        required: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
      };
    }
    return { $ref: `#/components/schemas/${named.name}` };
  }

  /** The object schema a `$ref` of `of()` names, or the schema itself. */
  objectOf(schema: JsonSchema): JsonSchema {
    const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
    return ref ? this.components[ref] : schema;
  }
}

/**
 * A path's success body: the operation's result (under `resultField` if the path has one) with
 * the envelope's `status: 'success'` or `success: true` beside its fields, as one object.
 */
function successBody(route: DeclaredRoute, result: JsonSchema, outputs: OutputSchemas): JsonSchema {
  const body = route.resultField
    ? { type: 'object', properties: { [route.resultField]: result }, required: [route.resultField] }
    : result;
  if (route.envelope === 'none') return body;
  const object = outputs.objectOf(body);
  if (object.type !== 'object') throw new Error(`${route.path}: an envelope needs an object result`);
  const [key, value] = route.envelope === 'status' ? ['status', 'success'] : ['success', true];
  return {
    ...object,
    properties: { [key]: { const: value }, ...(object.properties as JsonSchema) },
    required: [key, ...(object.required as string[])],
  };
}

/** What one status of a path answers: its bodies (one schema each) and when. */
interface StatusAnswers {
  schemas: Map<string, JsonSchema | z.ZodTypeAny>;
  descriptions: string[];
}

/**
 * Every status a path can answer, each with the bodies that produce it: the operation's success,
 * its refused input (in the path's validation shape), the failures its route declares (in its
 * failure shape; Shape B names their codes), and what the HTTP layer answers for itself (Shape A):
 * the key check of {base_url} paths, bodies too large or not JSON, a malformed URL, a lost
 * database, an internal error.
 */
function responsesOf(
  route: DeclaredRoute,
  operation: OperationDefinition,
  fields: number,
  pathParams: number,
  success: JsonSchema,
  idempotent: boolean,
) {
  const statuses = new Map<number, StatusAnswers>();
  const add = (status: number, key: string, schema: JsonSchema | z.ZodTypeAny, description: string) => {
    const answers: StatusAnswers = statuses.get(status) ?? { schemas: new Map(), descriptions: [] };
    answers.schemas.set(key, schema);
    if (!answers.descriptions.includes(description)) answers.descriptions.push(description);
    statuses.set(status, answers);
  };
  const fail = (shapes: ErrorShapes, failures: readonly DocumentedFailure[]) => {
    for (const failure of failures) {
      const codes = failures
        .filter((other) => other.status === failure.status)
        .flatMap((other) => other.codes);
      add(failure.status, `failure ${shapes.failure}`, failureBodySchema(shapes, codes), failure.description);
    }
  };

  const declared = typeof route.status === 'number' ? route.status : 200;
  add(declared, 'success', success, 'Success');
  for (const also of route.alsoAnswers ?? []) add(also.status, 'success', success, also.description);
  const body = takesBody(route.method);
  if (fields > 0 || body || idempotent) {
    add(
      400,
      `validation ${route.errors.validation}`,
      validationBodySchema(route.errors),
      [
        body
          ? 'Invalid parameters, or a body that is not a JSON object (zod’s issues, e.g. `invalid_json`, `invalid_type` with `expected: object`)'
          : 'Invalid parameters (zod’s issues)',
        idempotent ? `, or a malformed \`${IDEMPOTENCY_KEY_HEADER}\`` : '',
      ].join(''),
    );
  }
  // One list: Shape B names every code a status answers (the key's 409 and 422 beside the route's own).
  fail(
    route.errors,
    idempotent ? [...route.failures, IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_REUSED] : route.failures,
  );
  if (!operation.public && operation.scope !== 'read') fail(route.errors, [READ_ONLY_KEY]);
  if (pathParams > 0) fail(STATUS_FAILED_BODY, [MALFORMED_URL]);
  if (route.base === 'api') fail(STATUS_FAILED_BODY, KEY_CHECK_FAILURES);
  if (body) fail(STATUS_FAILED_BODY, [BODY_TOO_LARGE, UNSUPPORTED_BODY]);
  fail(STATUS_FAILED_BODY, [DATABASE_UNAVAILABLE, SHUTTING_DOWN, INTERNAL_ERROR]);

  const responses: Record<number, ResponseConfig> = {};
  for (const [status, { schemas, descriptions }] of [...statuses].sort(([a], [b]) => a - b)) {
    const [first, ...others] = [...schemas.values()];
    const schema = others.length
      ? z.union([first, ...others].map(asZod) as [z.ZodTypeAny, z.ZodTypeAny])
      : first;
    responses[status] = {
      description:
        descriptions.length === 1 ? descriptions[0] : descriptions.map((text) => `- ${text}`).join('\n'),
      content: { 'application/json': { schema: schema as z.ZodTypeAny } },
      ...(status === 429 || (status === IDEMPOTENCY_KEY_IN_PROGRESS.status && idempotent)
        ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } }
        : {}),
    };
  }
  return responses;
}

/** The header every mutation of an account takes (src/operations/idempotency.ts). */
const idempotencyKeyHeader = z.string().optional().openapi({
  description:
    'Runs the request once: a retry with the same key and the same body within IDEMPOTENCY_KEY_TTL_HOURS (24 by default) gets the first success again (status and body, with `Idempotent-Replayed: true`), a build the same nonce. Scoped to the account and this operation (GraphQL’s mutation fields have keys of their own). Another body under the key: 422 `idempotency_key_reused`; a retry while the first runs: 409 `idempotency_key_in_progress` with Retry-After. Failures are not kept (the key is free again). 1 to IDEMPOTENCY_KEY_MAX_LENGTH (255) visible ASCII characters without spaces, quotes or backslashes, e.g. a UUID; the draft’s quoted form `"…"` is accepted.',
});

/** A JSON Schema as a zod schema whose API reference is that schema (for unions of bodies). */
function asZod(schema: JsonSchema | z.ZodTypeAny): z.ZodTypeAny {
  return schema instanceof z.ZodType ? schema : z.unknown().openapi(schema);
}

/** `/keys/:id` → `/keys/{id}`. */
function openApiPath(route: DeclaredRoute): string {
  const relative = route.path.replace(/:(\w+)/g, '{$1}');
  return route.base === 'api' ? `/v1${relative}` : relative;
}

/** Components no `$ref` of the document names any more (types inlined into envelopes). */
function withoutUnreferenced(document: JsonSchema): JsonSchema {
  const components = document.components as { schemas: Record<string, JsonSchema> };
  const referenced = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        const name = inner.split('/').pop()!;
        if (!referenced.has(name)) {
          referenced.add(name);
          visit(components.schemas[name]);
        }
      } else visit(inner);
    }
  };
  visit(document.paths);
  visit(document.webhooks);
  components.schemas = Object.fromEntries(
    Object.entries(components.schemas).filter(([name]) => referenced.has(name)),
  );
  return document;
}

/**
 * The OpenAPI 3.1 document of every REST path, generated from the same definitions that serve
 * them: each path's operation (its zod input for parameters and bodies, its GraphQL output type
 * for the success body, less the fields GraphQL computes), the error shapes, the failures its
 * route declares and those of the HTTP layer; and the webhook calls Laurel makes (openapi-webhooks.ts).
 * `chains`: the chains served (the `Chain` enum); `signatureHeader`: WEBHOOK_SIGNATURE_HEADER.
 */
export function buildOpenApiDocument(
  modules: readonly Pick<ApiModule, 'name' | 'resolverClass' | 'routes'>[],
  graphqlSchema: GraphQLSchema,
  version: string,
  chains: readonly string[],
  signatureHeader = DEFAULT_WEBHOOK_SIGNATURE_HEADER,
): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-KEY',
    description: 'From POST /key/challenge, signed by the wallet, then POST /key/verify',
  });
  const outputs = new OutputSchemas();

  for (const module of modules) {
    for (const route of module.routes) {
      const { name, definition: operation } = operationReferencedBy(route.operation);
      const root =
        operation.kind === 'query' ? graphqlSchema.getQueryType() : graphqlSchema.getMutationType();
      const field = root?.getFields()[name];
      if (!field) throw new Error(`${name} is not in the GraphQL schema`);

      const object = unwrapField(operation.input).schema as z.AnyZodObject;
      const shape = inputShape(operation.input);
      const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
      const params = Object.fromEntries(pathParams.map((name) => [name, shape[name] ?? z.string()]));
      const fields = Object.keys(shape).filter((name) => !pathParams.includes(name));
      // The input less its path parameters (omit() drops the object's own API reference, e.g. its `oneOf`).
      const others = pathParams.length
        ? object.omit(Object.fromEntries(pathParams.map((name) => [name, true])))
        : object;
      const inQuery = !takesBody(route.method);
      const idempotent = takesIdempotencyKey(operation);

      const config: RouteConfig = {
        method: route.method,
        path: openApiPath(route),
        operationId: route.operationId ?? name,
        tags: [module.name],
        summary: operation.description,
        description: [
          `GraphQL: \`${operation.kind} { ${name} }\` runs the same operation.`,
          route.base === 'api' ? 'Also served under /api/v1.' : 'Unversioned ({auth_url}); needs no API key.',
          operation.scope === 'read' ? 'A read: read-only keys may call it.' : undefined,
          route.description,
        ]
          .filter(Boolean)
          .join(' '),
        security: operation.public ? [] : [{ apiKey: [] }],
        request: {
          ...(pathParams.length ? { params: z.object(params) } : {}),
          ...(idempotent ? { headers: z.object({ [IDEMPOTENCY_KEY_HEADER]: idempotencyKeyHeader }) } : {}),
          ...(inQuery && fields.length ? { query: others } : {}),
          ...(!inQuery && fields.length
            ? {
                body: {
                  // No body is an empty object (rest.ts): one is required only when a field is.
                  required: fields.some((name) => !shape[name]!.isOptional()),
                  content: { 'application/json': { schema: others } },
                },
              }
            : {}),
        },
        responses: responsesOf(
          route,
          operation,
          fields.length,
          pathParams.length,
          successBody(route, outputs.of(field.type), outputs),
          idempotent,
        ),
      };
      registry.registerPath(config);
    }
  }

  const receipt = graphqlSchema.getType('TransactionReceipt');
  if (!isObjectType(receipt)) throw new Error('TransactionReceipt is not in the GraphQL schema');
  registerWebhookCalls(registry, { receipt: outputs.of(receipt), signatureHeader });

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Laurel',
      version,
      description:
        'Rewards backend for EVM applications: API keys from signed challenges, unsigned reward transactions, broadcasting, profiles and leaderboards, webhooks. Every path is also a GraphQL operation at /graphql.',
    },
    servers: [{ url: '/' }],
  }) as unknown as JsonSchema;
  const schemas = { ...(document.components as { schemas?: JsonSchema }).schemas, ...outputs.components };
  if (chains.length) schemas.Chain = { ...(schemas.Chain as JsonSchema), enum: [...chains] };
  document.components = { ...(document.components as JsonSchema), schemas };
  return withoutUnreferenced(JSON.parse(JSON.stringify(document)) as JsonSchema);
}
