import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { Transaction, Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, startTestChain, type TestChain } from '../helpers/chain';
import { client, type Client, type Unsigned } from '../helpers/flow';
import { startHostileRpc, type HostileRpc } from '../helpers/hostile-rpc';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Anonymous clients and strangers' keys (issue 43, items 6–8, 11, 12): connections per client
 * address, idle sockets, anonymous GraphQL, /ready, the cost of a failed verify, Sign-In with
 * Ethereum, whose a transaction is, and /metrics behind a proxy. Clients bind their own loopback
 * source addresses (127.0.0.2, 127.0.0.3…) to be different client addresses.
 */
const PER_CLIENT = 50;
const ANONYMOUS_BUDGET = 10;
/**
 * Long enough for a loaded machine: the first half of a challenge's life must hold 101 asks, and
 * the second half an ask, a query, a signature and a verify.
 */
const CHALLENGE_TTL_SECONDS = 20;
const READY_INTERVAL_MS = 2_000;
const METRICS_TOKEN = 'a-long-enough-metrics-token';

/** Laurel without a chain, not behind a proxy: connections, anonymous GraphQL, challenges, budgets. */
let plain: TestLaurel;
/** Laurel with the `api` role only, behind a trusted proxy, on a chain reached through a counting proxy. */
let proxied: TestLaurel;
let chain: TestChain;
let rpc: HostileRpc;
let receiver: WebhookReceiver;

beforeAll(async () => {
  chain = await startTestChain();
  rpc = await startHostileRpc(chain.rpcUrl);
  receiver = await startWebhookReceiver();
  [plain, proxied] = await Promise.all([
    startTestLaurel({
      worker: false,
      env: {
        HTTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
        GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT: String(ANONYMOUS_BUDGET),
        API_KEY_CHALLENGE_TTL_SECONDS: String(CHALLENGE_TTL_SECONDS),
      },
    }),
    startTestLaurel({
      worker: false,
      env: {
        LAUREL_ROLES: 'api',
        CHAINS: JSON.stringify([{ ...chainConfigOf(chain), rpcUrl: rpc.url }]),
        READY_CHECK_INTERVAL_MS: String(READY_INTERVAL_MS),
        TRUST_PROXY: 'loopback',
        METRICS_TOKEN,
      },
    }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), proxied?.stop()]);
  await Promise.all([rpc?.close(), receiver?.stop()]);
  await chain?.stop();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  text: string;
}

/** One request from the loopback source address `from`, with its own headers (Host included). */
function send(
  url: string,
  method: string,
  path: string,
  options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const { hostname, port } = new URL(url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        method,
        path,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const parsed: unknown =
            text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : {};
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: parsed as Record<string, unknown>,
            text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function graphqlFrom(url: string, from: string, query: string, apiKey?: string): Promise<Answer> {
  return send(url, 'POST', '/graphql', {
    from,
    body: { query },
    headers: apiKey ? { 'x-api-key': apiKey } : {},
  });
}

describe('connections per client address', () => {
  it('1,000 idle sockets from one address do not stop another client, and are closed in time', async () => {
    const { port } = new URL(plain.url);
    const sockets: Socket[] = [];
    const closed = new Set<Socket>();
    const settled = new Set<Socket>();
    // Opened in waves the server has taken before the next: 1,000 connects at once overflow the
    // listen backlog (511), and the kernel then hands a connection the client already counts as
    // open to the server only at a SYN-ACK retransmission, seconds later, after the deadline below.
    for (let wave = 0; wave < 5; wave++) {
      for (let i = 0; i < 200; i++) {
        const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.2' });
        socket.on('error', () => undefined);
        // Read what the server sends: Node's own headers timeout may close a socket with a 408
        // first, and a socket whose data is never read never sees the end after it, nor closes.
        socket.resume();
        socket.on('connect', () => settled.add(socket));
        socket.on('close', () => {
          settled.add(socket);
          closed.add(socket);
        });
        sockets.push(socket);
      }
      // Past PER_CLIENT, the server closes them at once: the others wait for their first byte.
      await waitUntil(
        'the sockets over the cap to be closed',
        () => closed.size >= sockets.length - PER_CLIENT,
      );
    }
    const opened = Date.now();
    await waitUntil('every idle socket to connect or be closed', () => settled.size === 1_000);

    const other = await send(plain.url, 'GET', '/health', { from: '127.0.0.3' });
    expect(other).toMatchObject({ status: 200, body: { status: 'ok' } });

    // Sockets that never send a byte are closed after HTTP_HEADERS_TIMEOUT_MS (1 s here).
    await waitUntil('every idle socket to be closed', () => closed.size === 1_000, 15_000);
    expect(Date.now() - opened).toBeLessThan(15_000);
    // The address may connect again.
    expect((await send(plain.url, 'GET', '/health', { from: '127.0.0.2' })).status).toBe(200);
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { hostname, port } = new URL(plain.url);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const req = http.get(
        { host: hostname, port, path: '/health', agent, localAddress: '127.0.0.4' },
        (res) => {
          res.resume();
          res.on('end', () => resolve(req.socket!));
        },
      );
      req.on('error', reject);
    });
    const answered = Date.now();
    let closedAt = 0;
    socket.once('close', () => (closedAt = Date.now()));
    await waitUntil('the idle keep-alive socket to be closed', () => closedAt > 0, 10_000);
    expect(closedAt - answered).toBeLessThan(5_000);
    agent.destroy();
  });
});

describe('anonymous GraphQL', () => {
  const introspection = '{ __schema { types { name fields { name } } } }';

  it(`answers ${ANONYMOUS_BUDGET} requests a minute per client without a valid key, then 429 in GraphQL's shape`, async () => {
    const wallet = Wallet.createRandom();
    const apiKey = await issueApiKey(plain.url, wallet);
    for (let i = 0; i < ANONYMOUS_BUDGET; i++) {
      // No key and a wrong key spend the same budget.
      const key = i % 2 === 0 ? undefined : `laurel_${'A'.repeat(43)}`;
      expect((await graphqlFrom(plain.url, '127.0.0.5', introspection, key)).status).toBe(200);
    }
    const over = await graphqlFrom(plain.url, '127.0.0.5', introspection);
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    expect(over.body).toEqual({
      errors: [
        expect.objectContaining({
          message: 'Too many requests',
          extensions: expect.objectContaining({ code: 'RATE_LIMITED' }),
        }),
      ],
    });
    expect((await graphqlFrom(plain.url, '127.0.0.5', '{ __typename }', 'not-a-key')).status).toBe(429);
    const metrics = await send(plain.url, 'GET', '/metrics');
    expect(metrics.text).toMatch(
      /^laurel_http_rate_limited_total\{budget="anonymous_graphql_per_client"\} 2$/m,
    );
    // Another client, and the same client with a valid key, are not refused.
    expect((await graphqlFrom(plain.url, '127.0.0.6', '{ __typename }')).status).toBe(200);
    const withKey = await graphqlFrom(plain.url, '127.0.0.5', '{ apiKeys { id } }', apiKey);
    expect(withKey).toMatchObject({ status: 200, body: { data: { apiKeys: [expect.anything()] } } });
  });

  it('keys a budget by a client address a proxy forwards, however long, without a 500', async () => {
    const forwarded = { 'x-forwarded-for': `${'f'.repeat(400)}, 127.0.0.1` };
    const graphql = await send(proxied.url, 'POST', '/graphql', {
      headers: forwarded,
      body: { query: '{ __typename }' },
    });
    expect(graphql).toMatchObject({ status: 200, body: { data: { __typename: 'Query' } } });
    const challenge = await send(proxied.url, 'POST', '/key/challenge', {
      headers: forwarded,
      body: { public_address: Wallet.createRandom().address },
    });
    expect(challenge.status).toBe(200);
  });
});

describe('/ready', () => {
  it('asks each RPC provider once per READY_CHECK_INTERVAL_MS, however many callers', async () => {
    const before = rpc.calls('eth_blockNumber');
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(proxied.url, 'GET', '/ready')));
    const burst = Date.now();
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    expect(answers[0].body).toMatchObject({ status: 'ready', checks: { database: { ok: true } } });
    expect(rpc.calls('eth_blockNumber') - before).toBe(1);
    // Within the interval, from the shared result.
    await Promise.all(Array.from({ length: 20 }, () => send(proxied.url, 'GET', '/ready')));
    if (Date.now() - burst < READY_INTERVAL_MS) expect(rpc.calls('eth_blockNumber') - before).toBe(1);
    // After it, checked again.
    await waitUntil('the interval to pass', () => Date.now() - burst > READY_INTERVAL_MS);
    await Promise.all(Array.from({ length: 20 }, () => send(proxied.url, 'GET', '/ready')));
    expect(rpc.calls('eth_blockNumber') - before).toBe(2);
  });
});

describe('POST /key/verify', () => {
  async function openChallenges(address: string): Promise<number> {
    const [row] = await plain.services.prisma.$queryRaw<{ count: bigint }[]>`
      SELECT count(*) AS count FROM api_key_challenges
       WHERE address = ${address} AND consumed_at IS NULL AND expires_at > now()`;
    return Number(row.count);
  }

  it('costs the same however many challenges were asked for: two open per wallet and domain at most', async () => {
    const wallet = Wallet.createRandom();
    const ask = () =>
      send(plain.url, 'POST', '/key/challenge', { body: { public_address: wallet.address } }).then(
        (answer) => answer.body.challenge as string,
      );
    const first = await ask();
    const texts: string[] = [];
    // 25 at once: the connections one client may hold are capped (PER_CLIENT).
    for (let round = 0; round < 4; round++)
      texts.push(...(await Promise.all(Array.from({ length: 25 }, ask))));
    // While it has half its lifetime left, everyone gets the same one (one recovery per verify).
    expect(new Set([first, ...texts]).size).toBeLessThanOrEqual(2);
    expect(await openChallenges(wallet.address)).toBeLessThanOrEqual(2);
    const failed = await send(plain.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature: await Wallet.createRandom().signMessage(first) },
    });
    expect(failed).toMatchObject({ status: 401, body: { error: 'Signature verification failed' } });

    // Past half its lifetime a new one is handed out; the one it replaced stays good until it expires.
    const expiresAt = Date.parse(/^Expiration Time: (\S+)$/m.exec(first)![1]);
    const halfLifeMs = (CHALLENGE_TTL_SECONDS * 1000) / 2;
    await waitUntil('half the challenge’s lifetime to pass', () => Date.now() > expiresAt - halfLifeMs + 500);
    const second = await ask();
    expect(second).not.toBe(first);
    expect(await openChallenges(wallet.address)).toBe(2);
    // The replaced one is verified first, well within the time it has left.
    const verified = await send(plain.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature: await wallet.signMessage(first) },
    });
    expect(verified).toMatchObject({ status: 200, body: { api_key: expect.stringMatching(/^laurel_/) } });
    for (let i = 0; i < 20; i++) expect(await ask()).toBe(second);
    const again = await send(plain.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature: await wallet.signMessage(second) },
    });
    expect(again.status).toBe(200);
  });
});

describe('Sign-In with Ethereum', () => {
  it('names the domain, URI and chain id the request came to, and verifies only through that domain', async () => {
    const wallet = Wallet.createRandom();
    // Not behind a proxy: X-Forwarded-Host is the client's word, not the domain.
    const challenge = await send(plain.url, 'POST', '/key/challenge', {
      headers: { host: 'rewards.example.com', 'x-forwarded-host': 'phish.example.net' },
      body: { public_address: wallet.address },
    });
    expect(challenge.status).toBe(200);
    const text = challenge.body.challenge as string;
    expect(text.split('\n').slice(0, 2)).toEqual([
      'rewards.example.com wants you to sign in with your Ethereum account:',
      wallet.address,
    ]);
    expect(text).toMatch(/^URI: http:\/\/rewards\.example\.com$/m);
    expect(text).toMatch(/^Chain ID: 1$/m); // no chain served: Ethereum's
    expect(text).toMatch(/^Nonce: [0-9a-f]{32}$/m);
    expect(text).toMatch(/^Issued At: \S+$/m);
    expect(text).toMatch(/^Expiration Time: \S+$/m);
    const signature = await wallet.signMessage(text);

    // A phishing page relays the challenge: its verification comes through its own domain.
    const relayed = await send(plain.url, 'POST', '/key/verify', {
      headers: { host: 'phish.example.net' },
      body: { public_address: wallet.address, signature },
    });
    expect(relayed).toMatchObject({ status: 401, body: { error: 'Signature verification failed' } });
    const own = await send(plain.url, 'POST', '/key/verify', {
      headers: { host: 'rewards.example.com' },
      body: { public_address: wallet.address, signature },
    });
    expect(own).toMatchObject({ status: 200, body: { api_key: expect.stringMatching(/^laurel_/) } });
  });

  it('behind a trusted proxy, takes the domain and scheme the proxy forwards, and the served chain’s id', async () => {
    const wallet = Wallet.createRandom();
    const forwarded = {
      host: '127.0.0.1',
      'x-forwarded-host': 'api.example.org',
      'x-forwarded-proto': 'https',
    };
    const challenge = await send(proxied.url, 'POST', '/key/challenge', {
      headers: forwarded,
      body: { public_address: wallet.address },
    });
    const text = challenge.body.challenge as string;
    expect(text.split('\n')[0]).toBe('api.example.org wants you to sign in with your Ethereum account:');
    expect(text).toMatch(/^URI: https:\/\/api\.example\.org$/m);
    expect(text).toMatch(new RegExp(`^Chain ID: ${chain.chainId}$`, 'm'));
    const signature = await wallet.signMessage(text);
    const direct = await send(proxied.url, 'POST', '/key/verify', {
      body: { public_address: wallet.address, signature },
    });
    expect(direct.status).toBe(401);
    const through = await send(proxied.url, 'POST', '/key/verify', {
      headers: forwarded,
      body: { public_address: wallet.address, signature },
    });
    expect(through.status).toBe(200);
  });

  it('answers a request that names no usable host with 400 in Shape C', async () => {
    const answer = await send(plain.url, 'POST', '/key/challenge', {
      headers: { host: 'not a host' },
      body: { public_address: Wallet.createRandom().address },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { error: { issues: [expect.objectContaining({ code: 'invalid_host', path: [] })] } },
    });
  });
});

describe('a transaction belongs to its signer', () => {
  it("stays the signer's when another wallet's key executes the signed bytes first", async () => {
    const [, , , signer, executor] = chain.wallets;
    const asSigner: Client = client(proxied.url, await issueApiKey(proxied.url, signer), signer);
    const asExecutor: Client = client(proxied.url, await issueApiKey(proxied.url, executor), executor);
    // Each wallet has an active webhook for `transaction` events.
    const hooks = { signer: '/signer-hook', executor: '/executor-hook' };
    for (const [api, path] of [
      [asSigner, hooks.signer],
      [asExecutor, hooks.executor],
    ] as const) {
      receiver.route(path, answerChallenge());
      const webhook = await api.post('/webhook', { url: receiver.url(path), events: ['transaction'] });
      expect(webhook.status).toBe(201);
      const id = (webhook.body.webhook as { id: number }).id;
      expect((await api.post(`/webhook/${id}/test`, {})).status).toBe(200);
    }
    const built = await asSigner.post('/app/new', { chain: 'local', name: 'Signed by S' });
    const signed = await signer.signTransaction(built.body.unsignedTransaction as Unsigned);
    const hash = Transaction.from(signed).hash!;

    // The executor's key sends it first.
    const sent = await asExecutor.post('/transactions/execute-and-wait', {
      chain: 'local',
      signed_transaction: signed,
    });
    expect(sent).toMatchObject({ status: 200, body: { status: 'success', transactionHash: hash } });

    expect((await asSigner.get(`/transactions/${hash}`)).body).toMatchObject({
      status: 'success',
      transactionHash: hash,
      from: signer.address,
    });
    expect((await asExecutor.get(`/transactions/${hash}`)).status).toBe(404);
    // The signer's webhook hears of it (after its `test` call); the executor's does not.
    const calls = await receiver.waitForCalls(hooks.signer, 2);
    const events = calls.map(
      (call) => JSON.parse(call.body) as { event: string; payload: { hash?: string } },
    );
    expect(
      events.filter((event) => event.event === 'transaction').map((event) => event.payload.hash),
    ).toContain(hash);
    expect(
      receiver.calls
        .filter((call) => call.path === hooks.executor)
        .map((call) => (JSON.parse(call.body) as { event: string }).event),
    ).toEqual(['test']);
    // Sent again by its signer: the same transaction, still the signer's.
    const resent = await asSigner.post('/transactions/execute', {
      chain: 'local',
      signed_transaction: signed,
    });
    expect(resent).toMatchObject({ status: 200, body: { transactionHash: hash } });
    const rows = await proxied.services.prisma.transaction.findMany({ where: { hash } });
    expect(rows.map((row) => row.accountAddress)).toEqual([signer.address]);
  });
});

describe('/metrics on the API port', () => {
  it('is not served to a loopback peer whose request a proxy forwarded', async () => {
    expect((await send(plain.url, 'GET', '/metrics')).status).toBe(200);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const forwarded = await send(plain.url, 'GET', '/metrics', { headers: { [header]: '203.0.113.7' } });
      expect({ header, status: forwarded.status }).toEqual({ header, status: 403 });
    }
  });

  it('behind a trusted proxy, is served with the token only, loopback or not', async () => {
    expect((await send(proxied.url, 'GET', '/metrics')).status).toBe(403);
    const scraped = await send(proxied.url, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(scraped.status).toBe(200);
  });
});

describe('request budgets in PostgreSQL', () => {
  it('one wallet’s count the database refuses does not hold back the others’', async () => {
    const db = plain.services.prisma;
    const [poisoned, healthy] = [Wallet.createRandom(), Wallet.createRandom()];
    const [poisonedKey, healthyKey] = await Promise.all([
      issueApiKey(plain.url, poisoned),
      issueApiKey(plain.url, healthy),
    ]);
    const keys = (apiKey: string) => send(plain.url, 'GET', '/v1/keys', { headers: { 'x-api-key': apiKey } });
    expect((await keys(poisonedKey)).status).toBe(200);
    expect((await keys(healthyKey)).status).toBe(200);
    const points = async (wallet: { address: string }) => {
      const [row] = await db.$queryRaw<{ points: number }[]>`
        SELECT points FROM rate_limits WHERE key = ${`wallet:${wallet.address}`}`;
      return row?.points;
    };
    await waitUntil('both counts in PostgreSQL', async () => (await points(healthy)) === 1);
    // A row whose next count PostgreSQL refuses (integer out of range).
    await db.$executeRaw`UPDATE rate_limits SET points = 2147483647 WHERE key = ${`wallet:${poisoned.address}`}`;
    expect((await keys(poisonedKey)).status).toBe(200); // let through from memory, its count refused later
    for (let i = 0; i < 3; i++) expect((await keys(healthyKey)).status).toBe(200);
    await waitUntil('the healthy wallet’s counts in PostgreSQL', async () => (await points(healthy)) === 4);
    expect(await points(poisoned)).toBe(2147483647);
  });
});
