import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type NonEmptyArray } from 'type-graphql';
import type { RequestContext } from '../context';
import { UnauthenticatedError } from '../errors';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type ResolverClass = Function;

/**
 * Builds the executable schema. `instances` are the resolver objects the REST routes call too,
 * so both APIs run the very same methods. Operations marked @Authorized need an API key.
 */
export async function buildGraphQLSchema(
  resolverClasses: NonEmptyArray<ResolverClass>,
  instances: object[] = [],
): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: resolverClasses,
    container: {
      get: (someClass: ResolverClass) => {
        const instance = instances.find((candidate) => candidate instanceof someClass);
        if (!instance) throw new Error(`no instance of resolver ${someClass.name}`);
        return instance;
      },
    },
    authChecker: ({ context }: { context: RequestContext }) => {
      if (!context.account)
        throw new UnauthenticatedError('Missing or invalid API key: send it in the X-API-KEY header');
      return true;
    },
    validate: false,
  });
}

/** The checked-in schema.graphql: sorted, so that it only changes when the API does. */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
