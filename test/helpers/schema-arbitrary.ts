/**
 * fast-check arbitraries of the values a JSON Schema of openapi.json accepts, over the keywords
 * its request schemas use: `$ref`, `enum`/`const`, strings (`pattern`, `format: uri|uuid`,
 * lengths), integers and numbers (bounds), booleans, arrays (`items`, counts), objects (`required`,
 * optional properties, `oneOf` of required sets: exactly one of them). An unknown keyword fails
 * loudly, so a schema the generator cannot honour is never sampled wrongly. (The npm generators
 * of this kind are built on fast-check 1, or on another random source than fast-check's seed.)
 */
import fc from 'fast-check';

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['description', 'example', 'title', 'default']);

const KNOWN = new Set([
  ...ANNOTATIONS,
  '$ref',
  'enum',
  'const',
  'type',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'oneOf',
]);

/**
 * The schema with its `$ref` in place, and an `allOf` merged (zod-to-openapi describes a `$ref`
 * with a description as `allOf` of the two).
 */
function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  const { $ref, allOf, ...rest } = schema;
  if (Array.isArray(allOf)) {
    return Object.assign({}, ...allOf.map((part) => resolve(part as Schema, components)), rest) as Schema;
  }
  if (typeof $ref !== 'string') return schema;
  const name = $ref.split('/').pop()!;
  const target = components[name];
  if (!target) throw new Error(`no component ${name}`);
  return { ...resolve(target, components), ...rest };
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = schema.maxLength as number | undefined;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
  let base: fc.Arbitrary<string>;
  if (schema.format === 'uri')
    base = fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true });
  else if (schema.format === 'uuid') base = fc.uuid();
  else if (schema.format !== undefined) throw new Error(`no generator for format ${String(schema.format)}`);
  else if (pattern) base = fc.stringMatching(pattern);
  else base = fc.string({ minLength: min, maxLength: max ?? Math.max(min, 40), unit: 'grapheme' });
  return base.filter(
    (value) =>
      value.length >= min && (max === undefined || value.length <= max) && (!pattern || pattern.test(value)),
  );
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const minimum = schema.minimum as number | undefined;
  const maximum = schema.maximum as number | undefined;
  const above = schema.exclusiveMinimum as number | undefined;
  const below = schema.exclusiveMaximum as number | undefined;
  if (integer) {
    return fc.integer({
      min: minimum ?? (above !== undefined ? above + 1 : -(2 ** 31)),
      max: maximum ?? (below !== undefined ? below - 1 : 2 ** 31 - 1),
    });
  }
  return fc
    .oneof(
      fc.double({
        min: minimum ?? above ?? -1e12,
        max: maximum ?? below ?? 1e12,
        noNaN: true,
        noDefaultInfinity: true,
      }),
      fc.integer({ min: Math.ceil(minimum ?? above ?? -1e6), max: Math.floor(maximum ?? below ?? 1e6) }),
    )
    .filter((value) => (above === undefined || value > above) && (below === undefined || value < below));
}

function objectArbitrary(
  schema: Schema,
  components: Record<string, Schema>,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  // oneOf of required sets: exactly one set given, the others' fields left out.
  const choices = ((schema.oneOf as Schema[] | undefined) ?? [{ required: [] }]).map(
    (branch) => (branch.required as string[] | undefined) ?? [],
  );
  // Each branch's record is built once: fast-check's string arbitraries cost far more to build
  // (stringMatching tokenizes its slices) than to sample, so never build one per sample.
  const branches = choices.map((chosen) => {
    const others = new Set(choices.flat().filter((field) => !chosen.includes(field)));
    const fields = Object.keys(properties).filter((field) => !others.has(field));
    const model = Object.fromEntries(
      fields.map((field) => [field, arbitraryOf(properties[field], components)]),
    );
    return fc.record(model, {
      requiredKeys: fields.filter((field) => required.has(field) || chosen.includes(field)),
    });
  });
  return fc.oneof(...branches);
}

/** The values `schema` accepts (components resolve its `$ref`s). */
export function arbitraryOf(schema: Schema, components: Record<string, Schema>): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, components);
  const unknown = Object.keys(resolved).filter((key) => !KNOWN.has(key));
  if (unknown.length) throw new Error(`no generator for keywords ${unknown.join(', ')}`);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  if ('const' in resolved) return fc.constant(resolved.const);
  // A union of whole schemas (e.g. the kinds of a batch item): any one of them.
  if (resolved.type === undefined && Array.isArray(resolved.oneOf)) {
    return fc.oneof(...(resolved.oneOf as Schema[]).map((branch) => arbitraryOf(branch, components)));
  }
  switch (resolved.type) {
    case 'string':
      return stringArbitrary(resolved);
    case 'integer':
      return numberArbitrary(resolved, true);
    case 'number':
      return numberArbitrary(resolved, false);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitraryOf(resolved.items as Schema, components), {
        minLength: (resolved.minItems as number | undefined) ?? 0,
        maxLength: (resolved.maxItems as number | undefined) ?? 5,
      });
    case 'object':
      return objectArbitrary(resolved, components);
    default:
      throw new Error(`no generator for type ${String(resolved.type)}`);
  }
}
