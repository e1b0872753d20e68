import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { RequestContext } from '../operations/request-context';
import type { RequestAuthenticator } from '../operations/request-context';
import { graphqlRequestError } from './format-error';

/**
 * What one GraphQL document may ask, checked before it runs (graphql-armor); over a bound it is
 * refused with 400 GRAPHQL_VALIDATION_FAILED. Introspection (the Playground's schema query) is
 * exempt from depth and cost.
 */
export const GRAPHQL_LIMITS = {
  /** Aliases per operation: no batching a hundred builds into one request. */
  maxAliases: 15,
  /** Nesting depth of selections. */
  maxDepth: 10,
  /** Lexical tokens of the document, checked while parsing (graphql-js `maxTokens`): a huge document is refused cheaply. */
  maxTokens: 2_000,
  maxDirectives: 20,
  /** graphql-armor's cost: 2 per object field, 1 per scalar, times 1.5 per level of depth. */
  maxCost: 3_000,
} as const;

/** graphql-armor's validation rules and plugins for Apollo Server. */
export function graphqlArmor(): ReturnType<ApolloArmor['protect']> {
  return new ApolloArmor({
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true },
    // Tokens are bounded by graphql-js's own parser (Apollo's parseOptions): armor's parser plugin
    // turns every syntax error into a 500.
    maxTokens: { enabled: false },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    costLimit: {
      maxCost: GRAPHQL_LIMITS.maxCost,
      objectCost: 2,
      scalarCost: 1,
      depthCostFactor: 1.5,
      ignoreIntrospection: true,
    },
    // The schema is public (introspection, schema.graphql): suggestions help people in the Playground.
    blockFieldSuggestion: { enabled: false },
  }).protect();
}

/** Root fields of an operation (through fragments), each a unit of work as one REST request is. */
function rootFieldCount(selectionSet: SelectionSetNode, document: DocumentNode): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      count += rootFieldCount(selection.selectionSet, document);
    else {
      const fragment = document.definitions.find(
        (definition) =>
          definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION)
        count += rootFieldCount(fragment.selectionSet, document);
    }
  }
  return count;
}

/**
 * The cost of an operation against the wallet's request budget: one per root field, as one REST
 * request costs one, and two per mutation root field (a mutation builds or sends a transaction).
 */
export function operationCost(operation: OperationDefinitionNode, document: DocumentNode): number {
  const fields = Math.max(1, rootFieldCount(operation.selectionSet, document));
  return operation.operation === 'mutation' ? 2 * fields : fields;
}

/**
 * Spends an authenticated GraphQL operation's cost from the wallet's request budget once it is
 * parsed and validated; over the budget it is refused with 429 RATE_LIMITED and Retry-After.
 * (Operations without a key are the key-issuing ones, limited per client address by their service.)
 */
export function requestCostPlugin(authenticator: RequestAuthenticator): ApolloServerPlugin<RequestContext> {
  // Per operation of a cached document (Apollo hands the same node for the same document).
  const costs = new WeakMap<OperationDefinitionNode, number>();
  // Stateless: one listener serves every request.
  const listener: GraphQLRequestListener<RequestContext> = {
    async didResolveOperation({ contextValue, operation, document }) {
      if (!contextValue.account || !operation) return;
      let cost = costs.get(operation);
      if (cost === undefined) costs.set(operation, (cost = operationCost(operation, document)));
      try {
        await authenticator.countRequest(contextValue.account, cost);
      } catch (error) {
        // Over the budget: 429 RATE_LIMITED with Retry-After; a lost database: 503.
        throw graphqlRequestError(error) ?? error;
      }
    },
  };
  return { requestDidStart: async () => listener };
}
