import type { GraphQLSchema } from 'graphql';
import type { ClassType } from 'type-graphql';
import { operationFieldResolver, operationsOf } from '../operations/operation';

/**
 * Sets each operation's root field resolver on the schema type-graphql built, in place of
 * type-graphql's generic one: the field runs its resolver instance's operation directly
 * (operationFieldResolver). type-graphql's resolver assembles the method's parameters on every call
 * (sorting them, copying the arguments into an instance of the arguments class), which the
 * operation does not need: its own zod schema validates the input. Same arguments, same context,
 * same answers and errors.
 */
export function bindOperationResolvers(
  schema: GraphQLSchema,
  instances: readonly { resolverClass: ClassType; resolver: object }[],
): void {
  for (const { resolverClass, resolver } of instances) {
    for (const [method, definition] of operationsOf(resolverClass)) {
      const root = definition.kind === 'query' ? schema.getQueryType() : schema.getMutationType();
      const field = root?.getFields()[method];
      if (!field) throw new Error(`${resolverClass.name}.${method}: no root field ${method}`);
      field.resolve = operationFieldResolver(resolver, method);
    }
  }
}
