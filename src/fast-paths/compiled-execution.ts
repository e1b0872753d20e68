import type {
  GatewayExecutionResult,
  GatewayGraphQLRequestContext,
  GatewayInterface,
} from '@apollo/server-gateway-interface';
import {
  execute,
  GraphQLError,
  printSchema,
  Source,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SourceLocation,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';

/**
 * An operation is compiled on its second run, so that a client sending ever new documents costs
 * a graphql-js execution each, not a compilation each (a compilation costs many executions, the
 * Playground's introspection query most).
 */
const COMPILE_ON_RUN = 2;
/** Compiled operations kept (most recently run first); others run through graphql-js again. */
const MAX_COMPILED_OPERATIONS = 500;

/** graphql-js's own execution: for first runs, and wherever its exact errors are needed. */
function executeWithGraphQLJs(
  schema: GraphQLSchema,
  rc: GatewayGraphQLRequestContext,
): Promise<GatewayExecutionResult> {
  return Promise.resolve(
    execute({
      schema,
      document: rc.document,
      operationName: rc.request.operationName,
      variableValues: rc.request.variables,
      contextValue: rc.context,
    }),
  );
}

/** The offset in `body` of a line and column (1-based), as graphql-js counts lines. */
function positionOf(body: string, { line, column }: SourceLocation): number {
  const lineBreak = /\r\n|[\n\r]/g;
  let lineStart = 0;
  for (let current = 1; current < line; current += 1) {
    const match = lineBreak.exec(body);
    if (!match) break;
    lineStart = match.index + match[0].length;
  }
  return lineStart + column - 1;
}

/**
 * A graphql-jit error as the graphql-js GraphQLError that execution would have raised: same
 * message, locations, path and original error (Apollo Server and Laurel's formatError read
 * `extensions`, which graphql-jit leaves undefined when the original error has none).
 */
function asGraphQLJsError(error: GraphQLError, source: Source): GraphQLError {
  return new GraphQLError(error.message, {
    source: error.locations ? source : undefined,
    positions: error.locations?.map((location) => positionOf(source.body, location)),
    path: error.path,
    originalError: error.originalError ?? undefined,
  });
}

/**
 * Laurel's GraphQL executor, handed to Apollo Server through its gateway interface (Apollo
 * Server's way to replace graphql-js's execution): operations run as JavaScript compiled for
 * them by graphql-jit, which skips graphql-js's per-request walk of the document (argument and
 * field collection, type checks on every value). Everything else stays Apollo's: parsing,
 * validation, the document cache, plugins, error formatting and HTTP.
 *
 * Answers are graphql-js's: variables that fail coercion are reported by graphql-js itself (its
 * messages are what Apollo Server classifies as BAD_USER_INPUT with status 400; nothing has run
 * yet then), and errors raised while executing become graphql-js errors.
 */
export function compiledExecutionGateway(schema: GraphQLSchema): GatewayInterface {
  const runs = new WeakMap<OperationDefinitionNode, number>();
  const compiled = new LRUCache<OperationDefinitionNode, CompiledQuery | 'graphql-js'>({
    max: MAX_COMPILED_OPERATIONS,
  });

  function compiledFor(rc: GatewayGraphQLRequestContext): CompiledQuery | null {
    // Apollo leaves it undefined when the document has no such operation: graphql-js says so.
    const operation = rc.operation as OperationDefinitionNode | undefined;
    if (!operation) return null;
    const known = compiled.get(operation);
    if (known) return known === 'graphql-js' ? null : known;
    const run = (runs.get(operation) ?? 0) + 1;
    runs.set(operation, run);
    if (run < COMPILE_ON_RUN) return null;
    const compilation = compileQuery(schema, rc.document, operation.name?.value);
    const result = isCompiledQuery(compilation) ? compilation : null;
    compiled.set(operation, result ?? 'graphql-js');
    return result;
  }

  async function executor(rc: GatewayGraphQLRequestContext): Promise<GatewayExecutionResult> {
    const query = compiledFor(rc);
    if (!query) return executeWithGraphQLJs(schema, rc);
    const result = await query.query(undefined, rc.context, rc.request.variables ?? {});
    // No `data` at all: the variables failed coercion, before anything ran.
    if (!('data' in result)) return executeWithGraphQLJs(schema, rc);
    if (!result.errors) return result;
    const source = new Source(rc.source);
    return { ...result, errors: result.errors.map((error) => asGraphQLJsError(error, source)) };
  }

  return {
    // A fixed schema: loaded once, never updated.
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    load: async () => ({ schema, executor }),
    stop: async () => {},
  };
}
