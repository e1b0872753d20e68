import { HeaderMap } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isDatabaseUnavailable } from '../db/availability';
import { AppError, DatabaseUnavailableError, ValidationError } from '../errors';

const graphqlCodes: Record<string, string> = {
  unauthenticated: 'UNAUTHENTICATED',
  database_unavailable: 'SERVICE_UNAVAILABLE',
};

/**
 * An AppError's `extensions.code`: every refusal of the input (a 400: a validation error, a webhook
 * url or event refused by the service) is BAD_USER_INPUT, as graphql-js's own; others their code in
 * capitals.
 */
function graphqlCodeOf(error: AppError): string {
  if (error.httpStatus === 400) return 'BAD_USER_INPUT';
  return graphqlCodes[error.code] ?? error.code.toUpperCase();
}

/**
 * A whole GraphQL response refusing the request before execution (over the rate limit; with
 * `code`, a body that is not JSON: Apollo's BAD_REQUEST).
 */
export function graphqlErrorBody(
  error: AppError,
  code = graphqlCodeOf(error),
): { errors: GraphQLFormattedError[] } {
  return { errors: [{ message: error.message, extensions: { code } }] };
}

/** The AppError an error stands for: itself, or `Database unavailable` for a lost database; else null. */
function appErrorOf(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  return isDatabaseUnavailable(error) ? new DatabaseUnavailableError() : null;
}

/**
 * An AppError raised while a GraphQL request is prepared (in a plugin, before execution), as the
 * GraphQLError Apollo answers with the error's HTTP status and headers; null for other errors.
 */
export function graphqlRequestError(error: unknown): GraphQLError | null {
  const appError = appErrorOf(error);
  if (!appError) return null;
  return new GraphQLError(appError.message, {
    extensions: {
      code: graphqlCodeOf(appError),
      ...appError.details,
      http: { status: appError.httpStatus, headers: new HeaderMap(Object.entries(appError.headers)) },
    },
  });
}

/** An AppError's `extensions`: its code, HTTP status, validation issues and details. */
function extensionsOf(error: AppError): Record<string, unknown> {
  return {
    code: graphqlCodeOf(error),
    http_status: error.httpStatus,
    ...(error instanceof ValidationError ? { issues: error.issues } : {}),
    ...error.details,
  };
}

/**
 * An error of a subscription (graphql-ws): refused before it ran (an AppError), ended by its stream
 * (graphql-ws wraps what the stream threw, without a path), or of a pushed result (as a query's).
 */
export function formatSubscriptionError(error: unknown): GraphQLFormattedError {
  const original = appErrorOf(error instanceof GraphQLError && !error.path ? error.originalError : error);
  if (original) return { message: original.message, extensions: extensionsOf(original) };
  if (error instanceof GraphQLError) return formatGraphQLError(error.toJSON(), error);
  return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** A GraphQLError of Apollo's, not thrown by Laurel's code, answered with a 4xx status and no code. */
function isCodelessRefusal(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.originalError || error.extensions.code !== undefined)
    return false;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** AppErrors keep their message and details under `extensions`; anything else is masked. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const resolverError = unwrapResolverError(error);
  // graphql-js wraps a thrown value that is no Error of its realm (a socket error from Node's own
  // internals, under a VM sandbox) as NonErrorThrown, keeping the value in `thrownValue`.
  const unwrapped = (resolverError as { thrownValue?: unknown } | null)?.thrownValue ?? resolverError;
  const original = appErrorOf(unwrapped);
  if (original) {
    return {
      message: original.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: extensionsOf(original),
    };
  }
  const code = formatted.extensions?.code;
  // Errors raised by GraphQL itself (syntax, unknown field, bad variable) are the client's to see.
  if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  // Apollo's own refusals of a request that give no code (a persisted query's version or hash)
  // carry a 4xx status: the client's mistake, answered as BAD_REQUEST.
  if (isCodelessRefusal(error))
    return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_REQUEST' } };
  return {
    message: 'Internal server error',
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  };
}
