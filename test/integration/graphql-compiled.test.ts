import { Wallet } from 'ethers';
import { getIntrospectionQuery } from 'graphql';
import { client, createApp, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { graphql, request, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';

/**
 * GraphQL operations run through graphql-js the first time and as code compiled for them from
 * their second run on (src/fast-paths/compiled-execution.ts). Every answer here is asked three times, and the
 * three must be the same, status and body, field by field: successes, errors raised by
 * operations, variables that fail coercion, partial answers, nested field resolvers, fragments,
 * aliases, operation names and the Playground's introspection.
 */
let laurel: TestLaurel;
let owner: Wallet;
let ownerKey: string;
let api: Client;
let appId: string;
const receiver = Wallet.createRandom().address;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, owner] = laurel.chain!.wallets;
  [ownerKey] = await issueApiKeys(laurel.url, [owner]);
  api = client(laurel.url, ownerKey, owner);
  appId = await createApp(api, 'Compiled');
  // Two rewards on chain, indexed by execute-and-wait: the leaderboard has entries with profiles.
  for (const amount of [5, 2]) {
    const built = await api.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: 'play',
      receiver: amount === 5 ? receiver : owner.address,
      amount,
    });
    expect(built.status).toBe(200);
    await api.execute(built.body.unsignedTransaction as Unsigned);
  }
});

afterAll(async () => {
  await laurel?.stop();
});

type Answer = HttpResult<unknown>;

/** The same request three times: graphql-js's answer, then the compiled operation's two. */
async function thrice(ask: () => Promise<Answer>): Promise<{ status: number; body: unknown }[]> {
  const answers: Answer[] = [];
  for (let run = 0; run < 3; run += 1) answers.push(await ask());
  return answers.map(({ status, body }) => ({ status, body }));
}

async function expectSameAnswers(ask: () => Promise<Answer>): Promise<{ status: number; body: unknown }> {
  const [first, ...later] = await thrice(ask);
  for (const answer of later) expect(answer).toEqual(first);
  return first;
}

const REWARD_XP =
  'mutation Reward($chain: String!, $app: String!, $receiver: String!, $amount: Decimal!) ' +
  '{ rewardXP(chain: $chain, app_id: $app, action_id: "play", receiver: $receiver, amount: $amount) ' +
  '{ unsignedTransaction { to data gasLimit nonce chainId type } } }';

describe('compiled GraphQL operations answer as graphql-js does', () => {
  it('builds: the same transaction, with the next nonce each time', async () => {
    const answers = await thrice(() =>
      graphql(laurel.url, REWARD_XP, {
        apiKey: ownerKey,
        variables: { chain: 'local', app: appId, receiver, amount: '1.5' },
      }),
    );
    const nonces = answers.map(
      (answer) =>
        (answer.body as { data: { rewardXP: { unsignedTransaction: { nonce: number } } } }).data.rewardXP
          .unsignedTransaction.nonce,
    );
    expect(nonces).toEqual([nonces[0], nonces[0] + 1, nonces[0] + 2]);
    const withoutNonce = answers.map((answer) => JSON.stringify(answer).replace(/"nonce":\d+/, ''));
    expect(new Set(withoutNonce).size).toBe(1);
    expect(answers[0]).toMatchObject({
      status: 200,
      body: { data: { rewardXP: { unsignedTransaction: { to: appId, chainId: 31337, type: 2 } } } },
    });
  });

  it('literal Decimal arguments (a string, an integer, a decimal) build every time, not only the first', async () => {
    for (const amount of ['"2.5"', '3', '0.25']) {
      const document =
        `mutation { rewardXP(chain: "local", app_id: "${appId}", action_id: "play", receiver: "${receiver}", ` +
        `amount: ${amount}) { unsignedTransaction { to data } } }`;
      const answers = await thrice(() => graphql(laurel.url, document, { apiKey: ownerKey }));
      for (const answer of answers) {
        expect(answer).toMatchObject({
          status: 200,
          body: { data: { rewardXP: { unsignedTransaction: { to: appId } } } },
        });
      }
      expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    }
  });

  it('an operation that refuses its input: BAD_USER_INPUT with issues, path and locations', async () => {
    const answer = await expectSameAnswers(() =>
      graphql(laurel.url, REWARD_XP, {
        apiKey: ownerKey,
        variables: { chain: 'local', app: appId, receiver: '0x123', amount: '1' },
      }),
    );
    expect(answer.body).toMatchObject({
      data: null,
      errors: [
        {
          path: ['rewardXP'],
          locations: [{ line: 1, column: 90 }],
          extensions: { code: 'BAD_USER_INPUT', issues: expect.any(Array) },
        },
      ],
    });
  });

  it('an operation that fails: its error code and HTTP status in extensions', async () => {
    const answer = await expectSameAnswers(() =>
      graphql(laurel.url, REWARD_XP, {
        apiKey: ownerKey,
        variables: { chain: 'nowhere', app: appId, receiver, amount: '1' },
      }),
    );
    expect(answer.body).toMatchObject({ data: null, errors: [{ path: ['rewardXP'] }] });
    expect(
      (answer.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code,
    ).not.toBe('INTERNAL_SERVER_ERROR');
  });

  it('variables that fail coercion: 400 BAD_USER_INPUT, nothing built', async () => {
    const bad = await expectSameAnswers(() =>
      graphql(laurel.url, REWARD_XP, {
        apiKey: ownerKey,
        variables: { chain: 'local', app: appId, receiver, amount: 'lots' },
      }),
    );
    expect(bad).toMatchObject({
      status: 400,
      body: { errors: [{ message: expect.stringMatching(/^Variable "\$amount" got invalid value "lots"/) }] },
    });
    expect((bad.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe(
      'BAD_USER_INPUT',
    );
    const missing = await expectSameAnswers(() =>
      graphql(laurel.url, REWARD_XP, {
        apiKey: ownerKey,
        variables: { chain: 'local', app: appId, receiver },
      }),
    );
    expect(missing).toMatchObject({
      status: 400,
      body: { errors: [{ message: 'Variable "$amount" of required type "Decimal!" was not provided.' }] },
    });
  });

  it('without a key: UNAUTHENTICATED', async () => {
    const answer = await expectSameAnswers(() =>
      graphql(laurel.url, REWARD_XP, { variables: { chain: 'local', app: appId, receiver, amount: '1' } }),
    );
    expect(answer.body).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  it('a combined read with nested field resolvers, fragments and aliases', async () => {
    const query = `
      query Dashboard($chain: String!, $app: String, $user: String) {
        me: profile(chain: $chain, app_id: $app, user_id: $user) { ...Profile }
        top: leaderboard(chain: $chain, app_id: $app) { user xp_rewarded profile { ...Profile } }
        chainList { name chainId }
      }
      fragment Profile on UserProfileInfo {
        user_id xp_balance completed_actions { __typename } collected_badges { __typename }
      }`;
    const answer = await expectSameAnswers(() =>
      graphql(laurel.url, query, {
        apiKey: ownerKey,
        variables: { chain: 'local', app: appId, user: receiver },
      }),
    );
    expect(answer).toMatchObject({
      status: 200,
      body: {
        data: {
          me: { user_id: receiver, xp_balance: '5' },
          top: [
            { user: receiver, xp_rewarded: '5', profile: { user_id: receiver } },
            { user: owner.address, xp_rewarded: '2', profile: { user_id: owner.address } },
          ],
          chainList: [{ name: 'local', chainId: 31337 }],
        },
      },
    });
  });

  it('a partial answer: the failing field null with its error, the others answered', async () => {
    const query = `query Partial($chain: String!) {
      profile(chain: $chain, user_id: "not-an-address") { user_id }
      chainList { name }
    }`;
    // profile is non-null: its error nulls the whole data, in both executors alike.
    const answer = await expectSameAnswers(() =>
      graphql(laurel.url, query, { apiKey: ownerKey, variables: { chain: 'local' } }),
    );
    expect(answer.body).toMatchObject({ data: null, errors: [{ path: ['profile'] }] });
  });

  it('operation names: the named one runs; an unknown name is an error', async () => {
    const document = 'query A { chainList { name } } query B { chainList { chainId } }';
    const ask = (operationName: string) => () =>
      request(laurel.url, 'POST', '/graphql', { apiKey: ownerKey, body: { query: document, operationName } });
    expect((await expectSameAnswers(ask('B'))).body).toEqual({ data: { chainList: [{ chainId: 31337 }] } });
    expect((await expectSameAnswers(ask('C'))).body).toMatchObject({
      errors: [{ message: 'Unknown operation named "C".' }],
    });
  });

  it("the Playground's introspection query", async () => {
    const answer = await expectSameAnswers(() => graphql(laurel.url, getIntrospectionQuery()));
    expect(answer).toMatchObject({
      status: 200,
      body: { data: { __schema: { queryType: { name: 'Query' } } } },
    });
  });
});
