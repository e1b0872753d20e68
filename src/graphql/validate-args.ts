import { createMethodMiddlewareDecorator } from 'type-graphql';
import type { z } from 'zod';
import { parseInput } from '../validation';

/**
 * Validates an operation's GraphQL arguments with the same zod schema its REST route uses, and
 * hands the parsed (normalised) values to the resolver method. GraphQL `null` means "absent".
 */
export function ValidateArgs(schema: z.ZodTypeAny): MethodDecorator {
  return createMethodMiddlewareDecorator(async ({ args }, next) => {
    const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
    const parsed = parseInput(schema, present) as Record<string, unknown>;
    for (const key of Object.keys(args)) delete args[key];
    Object.assign(args, parsed);
    return next();
  });
}
