/**
 * The client's GraphQL types (packages/client/src/generated/graphql.ts), generated from
 * schema.graphql by `npm run schema:emit`: the arguments and result shapes of Laurel's
 * subscriptions, and every object type and enum they reach. graphql-js reads the schema; the few
 * lines below only print what it resolved (a codegen package would add a dependency tree for three
 * fields).
 */
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';

/** Where the client package keeps them. */
export const CLIENT_GRAPHQL_TYPES_FILE = 'packages/client/src/generated/graphql.ts';

/** The TypeScript of each scalar as JSON carries it. */
const SCALARS: Record<string, string> = {
  String: 'string',
  ID: 'string',
  Int: 'number',
  Float: 'number',
  Boolean: 'boolean',
  DateTimeISO: 'string',
  Decimal: 'string',
  JSON: 'unknown',
  JSONObject: 'Record<string, unknown>',
};

function tsType(type: GraphQLType, nullable = true): string {
  if (isNonNullType(type)) return tsType(type.ofType, false);
  const inner = isListType(type) ? `${tsType(type.ofType)}[]` : namedTs(type as GraphQLNamedType);
  return nullable ? `${inner} | null` : inner;
}

function namedTs(type: GraphQLNamedType): string {
  if (isScalarType(type)) {
    const ts = SCALARS[type.name];
    if (!ts) throw new Error(`no TypeScript type for the scalar ${type.name}: add it to SCALARS`);
    return ts;
  }
  if (isObjectType(type) || isEnumType(type)) return type.name;
  throw new Error(`a subscription reaches ${type.name}, which the client types cannot print yet`);
}

const comment = (text: string | null | undefined, indent = ''): string =>
  text ? `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n` : '';

const fieldLine = (field: GraphQLField<unknown, unknown>): string =>
  `${comment(field.description, '  ')}  ${field.name}: ${tsType(field.type)};\n`;

/** The types module for the schema whose SDL is `sdl`. */
export function clientGraphQLTypesText(sdl: string): string {
  const schema = buildSchema(sdl);
  const subscription = schema.getSubscriptionType();
  if (!subscription) throw new Error('schema.graphql has no Subscription type');
  const fields = Object.values(subscription.getFields()).sort((a, b) => a.name.localeCompare(b.name));

  // Every object type and enum the results reach, by name.
  const reached = new Map<string, GraphQLNamedType>();
  const visit = (type: GraphQLNamedType): void => {
    if (reached.has(type.name) || isScalarType(type)) return;
    reached.set(type.name, type);
    if (isObjectType(type))
      for (const field of Object.values(type.getFields())) visit(getNamedType(field.type));
  };
  for (const field of fields) {
    visit(getNamedType(field.type));
    for (const arg of field.args) visit(getNamedType(arg.type));
  }

  let text = '// Generated from schema.graphql by `npm run schema:emit`: do not edit.\n\n';
  for (const type of [...reached.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    text += comment(type.description);
    if (isEnumType(type)) {
      text += `export type ${type.name} = ${type
        .getValues()
        .map((value) => JSON.stringify(value.name))
        .join(' | ')};\n\n`;
    } else if (isObjectType(type)) {
      const own = Object.values(type.getFields()).sort((a, b) => a.name.localeCompare(b.name));
      text += `export interface ${type.name} {\n${own.map(fieldLine).join('')}}\n\n`;
    } else {
      namedTs(type);
    }
  }
  text += '/** What each subscription pushes (all fields; a subscription receives the ones it selects). */\n';
  text += `export interface SubscriptionResults {\n${fields.map(fieldLine).join('')}}\n\n`;
  text += "/** Each subscription's arguments. */\nexport interface SubscriptionArguments {\n";
  for (const field of fields) {
    text += `${comment(field.description, '  ')}  ${field.name}: {\n`;
    for (const arg of [...field.args].sort((a, b) => a.name.localeCompare(b.name))) {
      const optional = !isNonNullType(arg.type);
      text += `${comment(arg.description, '    ')}    ${arg.name}${optional ? '?' : ''}: ${tsType(arg.type)};\n`;
    }
    text += '  };\n';
  }
  text += '}\n\n';
  text +=
    "/** Each subscription argument's GraphQL type, for the variables of the documents the client writes. */\n";
  text += 'export const subscriptionArgumentTypes = {\n';
  for (const field of fields) {
    const args = [...field.args].sort((a, b) => a.name.localeCompare(b.name));
    text += `  ${field.name}: { ${args.map((arg) => `${arg.name}: '${String(arg.type)}'`).join(', ')} },\n`;
  }
  text += '} as const;\n';
  return text;
}
