/**
 * The status read and the events agree: when GET /v1/transactions/:hash answers that a
 * transaction is mined, its receipt and its `transaction` event are recorded, whether or not its
 * receipt job has run. This Laurel runs no worker, so the receipt job of a fire-and-forget execute
 * never runs: the status read is the only step that can record the receipt.
 */
import { receiptOf } from '../helpers/chain';
import { client, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

let laurel: TestLaurel;
let receiver: WebhookReceiver;
let api: Client;

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([
    startTestLaurel({ chain: true, worker: false }),
    startWebhookReceiver(),
  ]);
  const wallet = laurel.chain!.wallets[4]!;
  const [apiKey] = await issueApiKeys(laurel.url, [wallet]);
  api = client(laurel.url, apiKey, wallet);
  await laurel.services.prisma.webhook.create({
    data: { accountAddress: wallet.address, url: receiver.url('/events'), events: [], disabled: false },
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

it('records the receipt and the `transaction` event of a mined transaction before answering it mined', async () => {
  const wallet = laurel.chain!.wallets[4]!;
  const built = await api.post('/app/new', { chain: 'local', name: 'Status and events' });
  expect(built.status).toBe(200);
  const signed = await wallet.signTransaction(built.body.unsignedTransaction as Unsigned);
  const executed = await api.post('/transactions/execute', { chain: 'local', signed_transaction: signed });
  expect(executed).toMatchObject({ status: 200, body: { status: 'success' } });
  const hash = executed.body.transactionHash as string;
  // anvil mines at once, though possibly after answering the broadcast; no worker follows the receipt.
  const mined = await receiptOf(laurel.chain!.provider, hash);
  expect(mined.status).toBe(1);
  const prisma = laurel.services.prisma;
  expect(await prisma.transaction.findFirstOrThrow({ where: { hash } })).toMatchObject({
    status: 'pending',
  });

  const status = await api.get(`/transactions/${hash}?chain=local`);
  expect(status).toMatchObject({ status: 200, body: { status: 'success', transactionHash: hash } });

  // Recorded by that same read: the row and the event, once.
  expect(await prisma.transaction.findFirstOrThrow({ where: { hash } })).toMatchObject({
    status: 'success',
    blockNumber: BigInt(mined.blockNumber),
  });
  const events = await prisma.webhookEvent.findMany({
    where: { accountAddress: wallet.address, event: 'transaction' },
  });
  expect(events.filter((event) => (event.payload as { hash?: string }).hash === hash)).toHaveLength(1);
  // The process that recorded it makes the event's first webhook attempt.
  const [delivered] = await receiver.waitForCalls('/events', 1, 10_000);
  expect(JSON.parse(delivered!.body)).toMatchObject({ event: 'transaction', payload: { hash, status: 1 } });
  // A second read records nothing more.
  expect((await api.get(`/transactions/${hash}?chain=local`)).body).toMatchObject({ status: 'success' });
  expect(
    await prisma.webhookEvent.count({ where: { accountAddress: wallet.address, event: 'transaction' } }),
  ).toBe(events.length);
}, 120_000);
