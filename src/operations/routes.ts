import type { ClassType } from 'type-graphql';
import type { DocumentedFailure } from '../errors';
import type { ErrorShapes } from './error-shapes';
import type { OperationReference } from './operation';

/** The documented success envelope: `{status:'success', ...}`, `{success:true, ...}` or the result as is. */
export type SuccessEnvelope = 'status' | 'success' | 'none';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The names of a resolver's methods. */
type MethodName<R> = {
  [K in keyof R]: R[K] extends OperationReference ? K : never;
}[keyof R];

interface RouteOf<M extends OperationReference> {
  method: HttpMethod;
  /** Express path, relative to {base_url} (or {auth_url} for the key routes). */
  path: string;
  /**
   * The resolver method (an @Operation) this path runs, as `Resolver.prototype.method`: its input
   * schema parses the request.
   */
  operation: M;
  /** The documented failure bodies of this path. */
  errors: ErrorShapes;
  /**
   * What the operation can fail with besides refused input, each declared beside the error that
   * produces it: the API reference lists these statuses (in `errors`' failure shape) and no others
   * (the HTTP layer adds its own: API key, budget, body, database, 500).
   */
  failures: readonly DocumentedFailure[];
  envelope: SuccessEnvelope;
  /** The documented body puts the result under this field (`{keys: [...]}`); by default the result is the body. */
  resultField?: string;
  /** HTTP status of a success (default 200): one status, or one chosen by the result. */
  status?: number | ((result: Awaited<ReturnType<M>>) => number);
  /** Other statuses `status` answers with the success body, for the API reference. */
  alsoAnswers?: readonly { status: number; description: string }[];
  /** What the API reference adds about this path. */
  description?: string;
  /**
   * The API reference's operationId, which OpenAPI requires to be unique: by default the
   * operation's name; a second path of one operation names itself here.
   */
  operationId?: string;
}

/**
 * A REST path of one of a resolver's operations, declared beside the module: the input comes from
 * the query string and path parameters for GET and DELETE, the JSON body (with path parameters)
 * otherwise. The HTTP layer mounts it (src/http/rest.ts) and documents it (src/http/openapi.ts).
 */
export type RestRoute<R> = {
  [K in MethodName<R>]: RouteOf<Extract<R[K], OperationReference>>;
}[MethodName<R>];

/** A declared REST path, whatever its resolver: what mounting and the API reference read. */
export interface DeclaredRoute {
  /** `auth`: under {auth_url}, no API key; `api`: under {base_url}. */
  base: 'auth' | 'api';
  method: HttpMethod;
  path: string;
  operation: OperationReference;
  errors: ErrorShapes;
  failures: readonly DocumentedFailure[];
  envelope: SuccessEnvelope;
  resultField?: string;
  status?: number | ((result: never) => number);
  alsoAnswers?: readonly { status: number; description: string }[];
  description?: string;
  operationId?: string;
}

/** One module's API as the transports see it: the resolver GraphQL runs, and its REST paths. */
export interface ApiModule {
  name: string;
  resolverClass: ClassType;
  /** The one instance: GraphQL and REST call the same object. */
  resolver: object;
  routes: readonly DeclaredRoute[];
}
