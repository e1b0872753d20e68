import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import { Kind, type OperationDefinitionNode } from 'graphql';
import type { RequestContext } from '../operations/request-context';
import { formatGraphQLError } from './format-error';

/** Root fields named in a metric label at most; more are `(several fields)`. */
const ROUTE_FIELDS_MAX = 2;

/**
 * Names each GraphQL request for its log line (`mutation rewardXP`, `query Dashboard (profile,
 * leaderboard)`) and its metrics (`/graphql rewardXP`: root fields come from the schema, so the
 * label stays a bounded set), and puts the first error's code and message on its log line.
 */
export function operationLogPlugin(): ApolloServerPlugin<RequestContext> {
  // Per operation of a cached document (Apollo hands the same node for the same document).
  const names = new WeakMap<OperationDefinitionNode, { logged: string; route: string }>();
  const namesOf = (operation: OperationDefinitionNode) => {
    let known = names.get(operation);
    if (!known) {
      const fields = operation.selectionSet.selections.map((selection) =>
        selection.kind === Kind.FIELD ? selection.name.value : '…',
      );
      const distinct = [...new Set(fields)].sort();
      known = {
        logged: `${operation.operation}${operation.name ? ` ${operation.name.value}` : ''} (${fields.join(', ')})`,
        route: `/graphql ${distinct.length <= ROUTE_FIELDS_MAX ? distinct.join(',') : '(several fields)'}`,
      };
      names.set(operation, known);
    }
    return known;
  };
  // Stateless: one listener serves every request.
  const listener: GraphQLRequestListener<RequestContext> = {
    async didResolveOperation({ contextValue, operation }) {
      if (!operation) return;
      const { logged, route } = namesOf(operation);
      contextValue.logFields.graphql = logged;
      contextValue.labels.route = route;
    },
    async didEncounterErrors({ contextValue, errors }) {
      const [first] = errors;
      if (!first || contextValue.logFields.error) return;
      // As the client sees it (formatGraphQLError): an internal error's details stay out.
      const seen = formatGraphQLError(first.toJSON(), first);
      contextValue.logFields.error = {
        code: seen.extensions?.code ?? 'INTERNAL_SERVER_ERROR',
        message: seen.message,
      };
    },
  };
  return {
    requestDidStart: async ({ contextValue }) => {
      contextValue.labels.route = '/graphql';
      return listener;
    },
  };
}
