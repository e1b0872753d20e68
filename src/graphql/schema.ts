import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type ClassType, type NonEmptyArray } from 'type-graphql';
import { liveOperationsPubSub } from '../operations/live';
import { bindOperationResolvers } from '../fast-paths';

/** A resolver class with the one instance that GraphQL (and REST) call. */
export interface ResolverInstance {
  resolverClass: ClassType;
  resolver: object;
}

/**
 * Builds the executable schema from resolver classes. With `instances`, every class must have
 * one (checked here, at start, not on the first request): both APIs then run the very same
 * objects. Without, the schema can be printed but not executed (schema emission).
 */
export async function buildGraphQLSchema(
  resolverClasses: readonly ClassType[],
  instances?: readonly ResolverInstance[],
): Promise<GraphQLSchema> {
  const byClass = new Map(instances?.map(({ resolverClass, resolver }) => [resolverClass, resolver]));
  if (instances) {
    const missing = resolverClasses.filter((resolverClass) => !byClass.has(resolverClass));
    if (missing.length) {
      throw new Error(
        `no instance of resolver ${missing.map((resolverClass) => resolverClass.name).join(', ')}`,
      );
    }
  }
  if (resolverClasses.length === 0) throw new Error('no resolver classes');
  const instanceOf = (resolverClass: ClassType): object => {
    const instance = byClass.get(resolverClass);
    if (!instance) throw new Error(`no instance of resolver ${resolverClass.name}`);
    return instance;
  };
  const schema = await buildSchema({
    resolvers: resolverClasses as NonEmptyArray<ClassType>,
    container: { get: instanceOf },
    // Subscriptions (@LiveOperation) run on the same instances.
    pubSub: liveOperationsPubSub(instanceOf),
    validate: false,
  });
  bindOperationResolvers(schema, instances ?? []);
  return schema;
}

/** The checked-in schema.graphql: sorted, so that it only changes when the API does. */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
