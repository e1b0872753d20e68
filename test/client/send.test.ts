import { Wallet } from 'ethers';
import {
  Laurel,
  LaurelError,
  sendVerified,
  signIn,
  TransactionMismatchError,
} from '../../packages/client/src/index';
import { anvilDevPrivateKeys } from '../helpers/chain';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

const chain = 'local';
let laurel: TestLaurel;
let owner: Wallet;
let client: Laurel;
let app: string;
/** `METHOD path` of every request the client sent. */
const sent: string[] = [];

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  owner = new Wallet(anvilDevPrivateKeys(6)[5]!, laurel.chain!.provider);
  client = new Laurel({
    url: laurel.url,
    fetch: (request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname}`);
      return globalThis.fetch(request);
    },
  });
  await signIn(client, owner);
  const executed = await sendVerified(
    client,
    owner,
    '/v1/app/new',
    { chain, name: 'Sender' },
    { wait: true },
  );
  app = executed.created!.apps[0]!;
});
afterAll(async () => {
  await laurel?.stop();
});

const xp = () => ({
  chain,
  app_id: app,
  receiver: Wallet.createRandom().address,
  action_id: 'send',
  amount: 1,
});
const count = (what: string, from: number) => sent.slice(from).filter((request) => request === what).length;

/** A build whose nonce stays reserved and never sent: the next build is behind a gap. */
const leaveAGap = () => client.call(client.api.POST('/v1/reward/XP', { body: xp() }));

describe('sendVerified', () => {
  it('rebuilds after a 409 nonce_gap (Laurel freed the unsent nonce) and sends', async () => {
    await leaveAGap();
    const from = sent.length;
    const executed = await sendVerified(client, owner, '/v1/reward/XP', xp(), { wait: true });
    expect(executed).toMatchObject({ status: 'success' });
    expect([
      count('POST /v1/reward/XP', from),
      count('POST /v1/transactions/execute-and-wait', from),
    ]).toEqual([2, 2]);
    // The one sent has the nonce the unsent build had reserved (app/new took 0).
    expect((await laurel.chain!.provider.getTransaction(executed.transactionHash))?.nonce).toBe(1);
  });

  it('gives up after maxRebuilds with the nonce_gap answer', async () => {
    await leaveAGap();
    const refused = await sendVerified(client, owner, '/v1/reward/XP', xp(), { maxRebuilds: 0 }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(LaurelError);
    expect(refused).toMatchObject({ status: 409, code: 'nonce_gap' });
    // The gap was freed: the next send goes through at once.
    const from = sent.length;
    await expect(sendVerified(client, owner, '/v1/reward/XP', xp(), { wait: true })).resolves.toMatchObject({
      status: 'success',
    });
    expect(count('POST /v1/reward/XP', from)).toBe(1);
  });

  it('refuses a factory or chain id other than the one the caller pinned, before signing', async () => {
    const from = sent.length;
    const factory = Wallet.createRandom().address;
    const otherFactory = await sendVerified(
      client,
      owner,
      '/v1/app/new',
      { chain, name: 'x' },
      { factoryAddress: factory },
    ).catch((e: unknown) => e);
    expect(otherFactory).toBeInstanceOf(TransactionMismatchError);
    expect(otherFactory).toMatchObject({
      field: 'to',
      expected: factory.toLowerCase(),
      actual: laurel.chain!.factory.toLowerCase(),
    });
    const otherChain = await sendVerified(client, owner, '/v1/reward/XP', xp(), { chainId: 8453 }).catch(
      (e: unknown) => e,
    );
    expect(otherChain).toMatchObject({
      name: 'TransactionMismatchError',
      field: 'chainId',
      expected: '8453',
    });
    expect(count('POST /v1/transactions/execute', from)).toBe(0);
  });

  it('refuses gas over a ceiling the caller set', async () => {
    const refused = await sendVerified(client, owner, '/v1/reward/XP', xp(), {
      limits: { maxGasLimit: 21_000n },
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      name: 'TransactionMismatchError',
      field: 'gasLimit',
      expected: 'at most the ceiling 21000',
    });
  });

  it('names the chain when Laurel does not serve it', async () => {
    await expect(sendVerified(client, owner, '/v1/reward/XP', { ...xp(), chain: 'mars' })).rejects.toThrow(
      /serves no chain "mars" \(it serves: local\)/,
    );
  });
});
