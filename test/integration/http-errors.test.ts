import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Resolver } from 'type-graphql';
import { z } from 'zod';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { createHttpApp } from '../../src/http/app';
import { ChainsResolver } from '../../src/modules/chains/chains.resolver';
import { STATUS_FAILED_BODY } from '../../src/operations/error-shapes';
import { Operation } from '../../src/operations/operation';
import { linesInto } from '../helpers/logs';
import { request } from '../helpers/laurel';

/** An operation that fails the way a bug would. */
@Resolver()
class BoomResolver {
  @Operation({ kind: 'query', public: true, input: z.object({}), output: String, description: 'test only' })
  async boom(): Promise<string> {
    throw new Error('secret internal detail');
  }
}

/** The HTTP layer alone, with a route that fails the way a bug would. */
it('answers an unexpected error with 500 JSON, no stack trace, logged with the request id', async () => {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, linesInto(lines));
  const { app, stop } = await createHttpApp({
    log,
    api: {
      schema: await buildGraphQLSchema([ChainsResolver]),
      openApiDocument: () => ({}),
      authenticator: {
        authenticate: async () => ({
          address: '0x0000000000000000000000000000000000000001',
          apiKeyId: 'k',
          scope: 'full',
          expiresAt: null,
        }),
        countRequest: async () => undefined,
        watchRevocations: () => () => undefined,
        countAnonymousRequest: async () => undefined,
      },
      modules: [
        {
          name: 'boom',
          resolverClass: BoomResolver,
          resolver: new BoomResolver(),
          routes: [
            {
              base: 'auth',
              method: 'get',
              path: '/boom',
              operation: BoomResolver.prototype.boom,
              errors: STATUS_FAILED_BODY,
              failures: [],
              envelope: 'none',
            },
          ],
        },
      ],
    },
    readiness: async () => ({ ready: true, failing: [], checks: {} }),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const result = await request(url, 'GET', '/boom', { headers: { 'X-Request-Id': 'req-500' } });
    expect(result.status).toBe(500);
    expect(result.body).toEqual({ status: 'failed', error: 'Internal server error', request_id: 'req-500' });
    expect(JSON.stringify(result.body)).not.toContain('secret');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({ requestId: 'req-500', msg: 'unhandled error', level: 50, path: '/boom' }),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ requestId: 'req-500', msg: 'request', method: 'GET', status: 500 }),
    );

    // A GraphQL request's line names the operation it ran.
    const gql = await request(url, 'POST', '/graphql', {
      body: { query: 'query Chains { chainList { name } }', operationName: 'Chains' },
      apiKey: 'laurel_any',
      headers: { 'X-Request-Id': 'req-gql' },
    });
    expect(gql.status).toBe(200);
    // The line is written when the response finishes: wait for it.
    const deadline = Date.now() + 10_000;
    const gqlLine = () =>
      lines.find((line) => line.includes('"requestId":"req-gql"') && line.includes('"msg":"request"'));
    while (!gqlLine() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.parse(gqlLine() ?? '{}')).toMatchObject({
      path: '/graphql',
      graphql: 'query Chains (chainList)',
    });
  } finally {
    server.close();
    await stop();
  }
});
