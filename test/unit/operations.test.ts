import 'reflect-metadata';
import { getNamedType, isNonNullType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { Resolver } from 'type-graphql';
import { z } from 'zod';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import {
  Operation,
  operationReferencedBy,
  operationRunner,
  operationsOf,
  type OperationDefinition,
} from '../../src/operations/operation';
import {
  graphqlArgsReader,
  inputShape,
  unwrapField,
  withGraphQLInputType,
} from '../../src/operations/graphql-args';
import { laurelModules, resolverClasses } from '../../src/modules';
import { ChainsResolver } from '../../src/modules/chains/chains.resolver';
import { RewardsResolver } from '../../src/modules/rewards/rewards.resolver';
import { digitsSchema, ZodAmount, ZodDigits } from '../../src/validation';

/** Every @Operation of every module, with the GraphQL field it became. */
function everyOperation(
  schema: GraphQLSchema,
): [string, OperationDefinition, GraphQLField<unknown, unknown>][] {
  return laurelModules.flatMap((module) =>
    [...operationsOf(module.resolverClass)].map(([name, operation]) => {
      const root = operation.kind === 'query' ? schema.getQueryType() : schema.getMutationType();
      const field = root?.getFields()[name];
      if (!field) throw new Error(`${module.name}.${name} is not in the GraphQL schema`);
      return [`${module.name}.${name}`, operation, field] as [
        string,
        OperationDefinition,
        GraphQLField<unknown, unknown>,
      ];
    }),
  );
}

describe('one definition per operation', () => {
  let schema: GraphQLSchema;

  beforeAll(async () => {
    schema = await buildGraphQLSchema(resolverClasses);
  });

  it('every Query and Mutation field is an @Operation (so every one is validated by its schema)', () => {
    const declared = new Set(everyOperation(schema).map(([, , field]) => field));
    for (const root of [schema.getQueryType(), schema.getMutationType()]) {
      for (const field of Object.values(root!.getFields())) expect(declared.has(field)).toBe(true);
    }
  });

  it('the GraphQL arguments of every operation are exactly its zod input: names, optionality, descriptions, amounts', () => {
    const operations = everyOperation(schema);
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const [name, operation, field] of operations) {
      const shape = inputShape(operation.input);
      const graphqlArgs = Object.fromEntries(field.args.map((arg) => [arg.name, arg]));
      expect({ name, args: Object.keys(graphqlArgs).sort() }).toEqual({
        name,
        args: Object.keys(shape).sort(),
      });
      for (const [key, zodField] of Object.entries(shape)) {
        const arg = graphqlArgs[key];
        expect({ name, key, required: isNonNullType(arg.type) }).toEqual({
          name,
          key,
          required: !zodField.isOptional(),
        });
        expect({ name, key, description: arg.description ?? undefined }).toEqual({
          name,
          key,
          description: zodField.description,
        });
        if (unwrapField(zodField).schema instanceof ZodAmount)
          expect(getNamedType(arg.type).name).toBe('Decimal');
        // REST's digit strings (page, page_size, start, end) are GraphQL Ints; ids keep their ID.
        if (unwrapField(zodField).schema instanceof ZodDigits)
          expect({ name, key, type: getNamedType(arg.type).name }).toEqual({
            name,
            key,
            type: key === 'id' || key === 'log_id' ? 'ID' : 'Int',
          });
      }
    }
  });

  it('paging is Int in GraphQL for leaderboard and webhookLogs, from the same zod definitions', () => {
    for (const [operation, keys] of [
      ['leaderboard', ['page', 'page_size', 'start', 'end']],
      ['webhookLogs', ['page', 'page_size']],
    ] as const) {
      const field = schema.getQueryType()!.getFields()[operation];
      for (const key of keys) {
        expect({ operation, key, type: String(field.args.find((arg) => arg.name === key)!.type) }).toEqual({
          operation,
          key,
          type: 'Int',
        });
      }
    }
  });

  it('reads GraphQL arguments back as REST gives them: null absent, Ints of digits as digits, input objects plain', () => {
    const input = z.object({
      page: digitsSchema('a page number', '2').optional(),
      name: z.string().optional(),
      signature: withGraphQLInputType(
        z.object({ r: z.string(), start: digitsSchema('seconds', '1').optional() }),
        'TestSignatureInput',
        'test only',
      ),
    });
    const read = graphqlArgsReader(input);
    class Instance {
      r = '0x1';
      start: number | null = 7;
    }
    expect(read({ page: 2, name: null, signature: new Instance() })).toEqual({
      page: '2',
      signature: { r: '0x1', start: '7' },
    });
    expect(read({ page: null, signature: Object.assign(new Instance(), { start: null }) })).toEqual({
      signature: { r: '0x1' },
    });
    // What zod then parses is exactly REST's input: the digits rule applies to -1 as to "-1".
    expect(input.safeParse(read({ page: -1, signature: { r: '0x1' } })).success).toBe(false);
  });

  it('every argument has a description (they feed schema.graphql and the API reference)', () => {
    const missing = everyOperation(schema).flatMap(([name, , field]) =>
      field.args.filter((arg) => !arg.description).map((arg) => `${name}(${arg.name})`),
    );
    expect(missing).toEqual([]);
  });

  it('refuses at start a resolver without an instance, naming it', async () => {
    @Resolver()
    class OrphanResolver {
      @Operation({ kind: 'query', input: z.object({}), output: String, description: 'test only' })
      async orphan(): Promise<string> {
        return 'never';
      }
    }
    await expect(buildGraphQLSchema([OrphanResolver], [])).rejects.toThrow(
      'no instance of resolver OrphanResolver',
    );
  });

  it('a route row refers to its resolver method: the reference names an @Operation of its module', () => {
    expect(operationReferencedBy(RewardsResolver.prototype.rewardBadge)).toEqual({
      resolverClass: RewardsResolver,
      name: 'rewardBadge',
      definition: operationsOf(RewardsResolver).get('rewardBadge'),
    });
    const elsewhere = laurelModules.flatMap((module) =>
      module.routes
        .map((route) => ({ path: route.path, ...operationReferencedBy(route.operation) }))
        .filter(({ resolverClass }) => resolverClass !== module.resolverClass)
        .map(({ path, name }) => `${module.name} ${path}: ${name}`),
    );
    expect(elsewhere).toEqual([]);
  });

  it('refuses at start a route whose method is not an @Operation of the module it is mounted on', () => {
    const rewards = new RewardsResolver({} as ConstructorParameters<typeof RewardsResolver>[0]);
    expect(() => operationRunner(rewards, ChainsResolver.prototype.chainList)).toThrow(
      'ChainsResolver.chainList is not an operation of RewardsResolver',
    );
    const notAnOperation = async () => 'plain';
    expect(() => operationRunner(rewards, notAnOperation)).toThrow(
      'notAnOperation refers to no @Operation method',
    );
  });
});
