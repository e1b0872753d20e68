/**
 * Laurel's fast paths: the few places where Express, helmet, type-graphql and Apollo behaviour is
 * replaced by Laurel's own code, each because that behaviour cost a cheap request a measured share
 * of its CPU (the figures are in docs/benchmarks.md). Each keeps the answers of what it replaces
 * identical: test/unit/fast-paths.test.ts runs the route table, sendJson and helmet's headers
 * beside Express and helmet, test/integration/graphql-compiled.test.ts compiled execution beside
 * graphql-js. Everywhere else the code is plain Express and type-graphql.
 *
 * - route-table.ts: the route table instead of Express's routers. Every route is found with one
 *   lookup instead of a walk that tries each layer's regular expression in turn. Keeps Express's
 *   matching (case-insensitive, one optional trailing slash, decoded parameters, HEAD served by
 *   GET), its 405 answer with `Allow`, and rejected promises going to the error handler.
 * - json-answer.ts: sendJson instead of `res.status().json()`. Skips the per-answer content-type
 *   parsing and freshness check; sends the same headers and bytes.
 * - security-headers.ts: helmet's headers taken once at start instead of helmet's middlewares on
 *   every request; the headers do not depend on the request, so every answer carries the same ones.
 * - operation-resolvers.ts: each GraphQL root field calls its operation directly, set on the schema
 *   after type-graphql built it, instead of type-graphql's generic resolver, which assembles the
 *   method's parameters on every call. Same arguments, context, validation and errors.
 * - compiled-execution.ts: operations run as JavaScript that graphql-jit compiles for them (from
 *   an operation's second run), handed to Apollo through its gateway interface, instead of
 *   graphql-js's execution. Keeps graphql-js's answers and errors; parsing, validation, plugins and
 *   error formatting stay Apollo's.
 * - apollo-http.ts: Apollo's HTTP handling called from Laurel's handler instead of
 *   @as-integrations/express5 (no legacy `url.parse` of every URL, no `res.send`), and GraphQL's
 *   middlewares run as one layer of Express's router. Same status, headers and body.
 *
 * Beside them, answers.ts: how a failure is answered and noted for the request's log line, which
 * the route table needs for its 405 and the transports for every other failure.
 *
 * Not here, because they live below the transports: the @Operation decorator runs the method
 * itself rather than through type-graphql middlewares (src/operations/operation.ts).
 */
export { answerGraphQL, inTurn } from './apollo-http';
export { compiledExecutionGateway } from './compiled-execution';
export { sendJson } from './json-answer';
export { bindOperationResolvers } from './operation-resolvers';
export { dispatchRoutes, RouteTable, type TableRoute } from './route-table';
export { securityHeaders } from './security-headers';
