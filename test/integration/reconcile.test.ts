import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startLaurel, type Laurel } from '../../src/server/laurel';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { client, type Unsigned } from '../helpers/flow';
import { request } from '../helpers/laurel';

/**
 * The chain loses blocks Laurel saw mined (anvil restarted from a state saved before them; here
 * anvil's own snapshot/revert): the next start marks those transactions dropped and frees their
 * nonces, so the sender's next build uses the chain's nonce and goes through at once.
 */
let chain: TestChain;
let database: { url: string; drop(): Promise<void> };
const running: Laurel[] = [];

async function start(): Promise<Laurel> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: database.url,
    LOCAL_CHAIN: 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    EXECUTE_WAIT_TIMEOUT_SECONDS: '10',
    CHAINS: JSON.stringify([chainConfigOf(chain)]),
  });
  const laurel = await startLaurel(config, { log: createLogger(config.logLevel) });
  running.push(laurel);
  return laurel;
}

beforeAll(async () => {
  chain = await startTestChain();
  database = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  for (const laurel of running) await laurel.stop();
  await chain?.stop();
  await database?.drop();
});

it('marks transactions the chain lost as dropped on the next start, and nonces follow the chain', async () => {
  const wallet = chain.wallets[3];
  const first = await start();
  const apiKey = await issueApiKey(first.url, wallet);
  const snapshot = await chain.provider.send('evm_snapshot', []);
  const nonceBefore = await chain.provider.getTransactionCount(wallet.address);

  const api = client(first.url, apiKey, wallet);
  const built = await api.post('/app/new', { chain: 'local', name: 'Lost with the chain' });
  expect(built.body.unsignedTransaction).toMatchObject({ nonce: nonceBefore });
  const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
  const lostHash = (receipt as unknown as { hash: string }).hash;
  const row = (laurel: Laurel) =>
    laurel.services.prisma.transaction.findFirstOrThrow({ where: { hash: lostHash } });
  expect((await row(first)).status).toBe('success');

  // The blocks are lost; Laurel's table still says success, and its reservation holds the nonce.
  expect(await chain.provider.send('evm_revert', [snapshot])).toBe(true);
  expect(await chain.provider.getTransaction(lostHash)).toBeNull();
  await first.stop();
  running.splice(running.indexOf(first), 1);

  const second = await start();
  expect((await row(second)).status).toBe('dropped');
  const again = client(second.url, apiKey, wallet);
  const rebuilt = await again.post('/app/new', { chain: 'local', name: 'After the loss' });
  expect(rebuilt.body.unsignedTransaction).toMatchObject({ nonce: nonceBefore });
  const signed = await wallet.signTransaction(rebuilt.body.unsignedTransaction as Unsigned);
  const started = Date.now();
  const sent = await request(second.url, 'POST', '/v1/transactions/execute-and-wait', {
    apiKey,
    body: { chain: 'local', signed_transaction: signed },
  });
  expect(sent).toMatchObject({ status: 200, body: { status: 'success' } });
  expect(Date.now() - started).toBeLessThan(10_000);
}, 120_000);
