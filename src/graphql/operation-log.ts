import type { ApolloServerPlugin } from '@apollo/server';
import { Kind } from 'graphql';
import type { RequestContext } from '../context';

/**
 * Names each GraphQL request for its log line: `mutation rewardXP`, `query Dashboard (profile,
 * leaderboard)`, so a `POST /graphql` line says what it did.
 */
export function operationLogPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, operationName }) {
          if (!operation) return;
          const fields = operation.selectionSet.selections
            .map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '…'))
            .join(', ');
          contextValue.logFields.graphql = `${operation.operation}${operationName ? ` ${operationName}` : ''} (${fields})`;
        },
      };
    },
  };
}
