import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import { Kind } from 'graphql';
import type { RequestContext } from '../operations/request-context';

/**
 * Names each GraphQL request for its log line: `mutation rewardXP`, `query Dashboard (profile,
 * leaderboard)`, so a `POST /graphql` line says what it did.
 */
export function operationLogPlugin(): ApolloServerPlugin<RequestContext> {
  // Stateless: one listener serves every request.
  const listener: GraphQLRequestListener<RequestContext> = {
    async didResolveOperation({ contextValue, operation, operationName }) {
      if (!operation) return;
      const fields = operation.selectionSet.selections
        .map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '…'))
        .join(', ');
      contextValue.logFields.graphql = `${operation.operation}${operationName ? ` ${operationName}` : ''} (${fields})`;
    },
  };
  return { requestDidStart: async () => listener };
}
