import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
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
import { z } from 'zod';
import { failureBodySchema, validationBodySchema } from '../operations/error-shapes';
import { inputShape } from '../operations/graphql-args';
import { operationOf } from '../operations/operation';
import type { ApiModule, DeclaredRoute } from '../operations/routes';

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

/** The JSON Schema of a GraphQL output type; object types become components (by their GraphQL name). */
function outputSchema(type: GraphQLOutputType, components: Record<string, JsonSchema>): JsonSchema {
  if (isNonNullType(type)) return outputSchema(type.ofType, components);
  if (isListType(type)) return { type: 'array', items: outputSchema(type.ofType, components) };
  const named = getNamedType(type);
  if (isScalarType(named)) return SCALARS[named.name] ?? {};
  if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((value) => value.name) };
  if (isObjectType(named)) {
    if (!components[named.name]) {
      components[named.name] = {}; // a placeholder first: types may refer to themselves
      const fields = Object.values(named.getFields());
      components[named.name] = {
        type: 'object',
        ...(named.description ? { description: named.description } : {}),
        properties: Object.fromEntries(
          fields.map((field) => {
            const schema = outputSchema(field.type, components);
            const nullable = !isNonNullType(field.type);
            const property = nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
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
  return {};
}

const json = (schema: JsonSchema | z.ZodTypeAny, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** `/keys/:id` → `/keys/{id}`. */
function openApiPath(path: DeclaredRoute): string {
  const relative = path.path.replace(/:(\w+)/g, '{$1}');
  return path.base === 'api' ? `/v1${relative}` : relative;
}

/**
 * The OpenAPI 3.1 document of every REST path, generated from the same definitions that serve
 * them: each path's operation (its zod input for parameters and bodies, its GraphQL output type
 * for the success body) and its documented envelope and error shapes.
 */
export function buildOpenApiDocument(
  modules: readonly Pick<ApiModule, 'name' | 'resolverClass' | 'routes'>[],
  graphqlSchema: GraphQLSchema,
  version: string,
): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-KEY',
    description: 'From POST /key/challenge, signed by the wallet, then POST /key/verify',
  });
  const components: Record<string, JsonSchema> = {};

  for (const module of modules) {
    for (const path of module.routes) {
      const operation = operationOf(module.resolverClass, path.operation);
      const root =
        operation.kind === 'query' ? graphqlSchema.getQueryType() : graphqlSchema.getMutationType();
      const field = root?.getFields()[path.operation];
      if (!field) throw new Error(`${path.operation} is not in the GraphQL schema`);

      const shape = inputShape(operation.input);
      const pathParams = [...path.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
      const params = Object.fromEntries(pathParams.map((name) => [name, shape[name] ?? z.string()]));
      const fields = Object.fromEntries(Object.entries(shape).filter(([name]) => !pathParams.includes(name)));
      const inQuery = path.method === 'get' || path.method === 'delete';

      const result = outputSchema(field.type, components);
      const body: JsonSchema = path.resultField
        ? { type: 'object', required: [path.resultField], properties: { [path.resultField]: result } }
        : result;
      const success =
        path.envelope === 'none'
          ? body
          : {
              allOf: [
                {
                  type: 'object',
                  properties:
                    path.envelope === 'status'
                      ? { status: { const: 'success' } }
                      : { success: { const: true } },
                },
                body,
              ],
            };

      const failure = failureBodySchema(path.errors);
      const route: RouteConfig = {
        method: path.method,
        path: openApiPath(path),
        operationId: path.operation,
        tags: [module.name],
        summary: operation.description,
        description: [
          `GraphQL: \`${operation.kind} { ${path.operation} }\` runs the same operation.`,
          path.base === 'api' ? 'Also served under /api/v1.' : 'Unversioned ({auth_url}); needs no API key.',
          path.description,
        ]
          .filter(Boolean)
          .join(' '),
        security: operation.public ? [] : [{ apiKey: [] }],
        request: {
          ...(pathParams.length ? { params: z.object(params) } : {}),
          ...(inQuery && Object.keys(fields).length ? { query: z.object(fields) } : {}),
          ...(!inQuery && Object.keys(fields).length
            ? { body: { required: true, content: { 'application/json': { schema: z.object(fields) } } } }
            : {}),
        },
        responses: {
          [typeof path.status === 'number' ? path.status : 200]: json(success, 'Success'),
          ...Object.fromEntries(
            (path.alsoAnswers ?? []).map(({ status, description }) => [status, json(success, description)]),
          ),
          400: json(validationBodySchema(path.errors), 'Invalid parameters'),
          ...(operation.public ? {} : { 401: json(failure, 'Missing, unknown or revoked API key') }),
          404: json(failure, 'Not found (app, token, badge, …)'),
          409: json(failure, 'Conflict (nonce, badge name, key cap, …)'),
          422: json(failure, 'A contract call reverted or a node refused a transaction'),
          429: {
            ...json(failure, 'Over the request budget'),
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
          },
          503: json(failure, 'A chain node or the database is unavailable'),
        },
      };
      registry.registerPath(route);
    }
  }

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Laurel',
      version,
      description:
        'Rewards backend for EVM applications: API keys from signed challenges, unsigned reward transactions, broadcasting, profiles and leaderboards, webhooks. Every path is also a GraphQL operation at /graphql.',
    },
    servers: [{ url: '/' }],
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...components },
  };
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}
