import { Wallet } from 'ethers';
import {
  buildCallHash,
  buildersOf,
  freeNoncesOf,
  markNonceBroadcast as markBroadcast,
  NonceReserver,
  type PendingNonce,
  releaseUnsentNonces,
  reserveNonces as reserve,
} from '../../src/modules/transactions/building/nonce-reservations';
import { loadConfig } from '../../src/config';
import { connectDatabase, type Database, type PrismaClient } from '../../src/db/prisma';
import { createTestDatabase } from '../helpers/database';

describe('nonce reservation (PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let connection: Database;
  let prisma: PrismaClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    connection = connectDatabase(database.url);
    prisma = connection.prisma;
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await connection?.pool.end();
    await database?.drop();
  });

  const sender = () => Wallet.createRandom().address;
  /** The configured lease unless a test gives its own. */
  const ttlSeconds = loadConfig({}).transactions.nonceReservationTtlSeconds;
  /** A read of the pending nonce begun now (unless the test says when). */
  const read = (nonce: number, readAt = new Date()): PendingNonce => ({ nonce, readAt });
  /** reserveNonces with the configured lease unless a test gives its own, and a read begun now. */
  const reserveNonces = (
    pool: Parameters<typeof reserve>[0],
    params: Omit<Parameters<typeof reserve>[1], 'ttlSeconds' | 'pending'> & {
      pendingNonce: number;
      readAt?: Date;
      ttlSeconds?: number;
    },
  ) =>
    reserve(pool, {
      ...params,
      pending: read(params.pendingNonce, params.readAt),
      ttlSeconds: params.ttlSeconds ?? ttlSeconds,
    });
  const markNonceBroadcast = (
    client: Parameters<typeof markBroadcast>[0],
    params: Omit<Parameters<typeof markBroadcast>[1], 'ttlSeconds'> & { ttlSeconds?: number },
  ) => markBroadcast(client, { ...params, ttlSeconds: params.ttlSeconds ?? ttlSeconds });
  /** One build's reservation. */
  const reserveNonce = async (params: {
    chainId: number;
    sender: string;
    pendingNonce: number;
    readAt?: Date;
    ttlSeconds?: number;
  }) => (await reserveNonces(connection.pool, { ...params, callHashes: [null] }))[0];
  const reservations = async (chainId: number, address: string) =>
    (
      await prisma.nonceReservation.findMany({
        where: { chainId, sender: address },
        orderBy: { nonce: 'asc' },
      })
    ).map((row) => Number(row.nonce));

  it('hands 20 concurrent builds 20 distinct consecutive nonces', async () => {
    const address = sender();
    const nonces = await Promise.all(
      Array.from({ length: 20 }, () => reserveNonce({ chainId: 1, sender: address, pendingNonce: 7 })),
    );
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 7 + i));
  });

  it('keeps senders and chains apart, whatever the address case', async () => {
    const address = sender();
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 })).toBe(0);
    expect(await reserveNonce({ chainId: 1, sender: address.toLowerCase(), pendingNonce: 0 })).toBe(1);
    expect(await reserveNonce({ chainId: 2, sender: address, pendingNonce: 0 })).toBe(0);
    expect(await reserveNonce({ chainId: 1, sender: sender(), pendingNonce: 0 })).toBe(0);
  });

  it('drops reservations the chain has passed', async () => {
    const address = sender();
    for (let i = 0; i < 3; i += 1) await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 2 })).toBe(3);
    expect(await reservations(1, address)).toEqual([2, 3]);
    // The chain moved past everything reserved: start again at the pending nonce.
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 10 })).toBe(10);
    expect(await reservations(1, address)).toEqual([10]);
  });

  it('reclaims expired reservations and fills the gap first', async () => {
    const address = sender();
    for (let i = 0; i < 4; i += 1) await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    // Nonce 1 was never sent: its lease ran out.
    await prisma.nonceReservation.update({
      where: { chainId_sender_nonce: { chainId: 1, sender: address, nonce: 1n } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 })).toBe(1);
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 })).toBe(4);
  });

  /** Makes the leases of `nonces` lapse, as if their TTL had passed. */
  const lapse = (chainId: number, address: string, nonces: number[]) =>
    prisma.nonceReservation.updateMany({
      where: { chainId, sender: address, nonce: { in: nonces.map(BigInt) } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

  it('reuses lapsed leases lowest first, past the TTL, and never a nonce still held', async () => {
    const address = sender();
    const held = await reserveNonces(connection.pool, {
      chainId: 1,
      sender: address,
      pendingNonce: 0,
      callHashes: range(0, 300).map(() => null),
    });
    expect(held).toEqual(range(0, 300));
    // The oldest lapse first, as a sender building without sending meets them; some later ones too.
    const lapsed = [...range(0, 100), ...range(150, 300).filter((nonce) => nonce % 3 === 0)];
    await lapse(1, address, lapsed);
    const next = () => reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    const one = [await next(), await next(), await next()];
    expect(one).toEqual(lapsed.slice(0, 3));
    // Concurrent builds, through a reserver and through calls of their own: each gets a nonce
    // nobody holds, the lapsed ones before any new one.
    const reserver = new NonceReserver(connection.pool, 120);
    const rest = await Promise.all([
      ...range(0, 100).map(() => reserver.reserve(1, address, read(0), null)),
      ...range(0, lapsed.length - 103 + 20).map(() => next()),
    ]);
    expect([...one, ...rest].sort((a, b) => a - b)).toEqual([...lapsed, ...range(300, 320)]);
    expect(await reservations(1, address)).toEqual(range(0, 320));
  });

  it('hands out again the nonces the node counts no more (pending nonce going back)', async () => {
    const address = sender();
    for (let i = 0; i < 5; i += 1) await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 3 })).toBe(5);
    // Transactions 1 and 2 were dropped: the node's pending nonce is 1 again.
    const next = () => reserveNonce({ chainId: 1, sender: address, pendingNonce: 1 });
    expect([await next(), await next(), await next()]).toEqual([1, 2, 6]);
  });

  it('takes a read begun before the one that set the floor, counting fewer, for stale: it frees nothing', async () => {
    const address = sender();
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0, ms));
    const reserveRead = (pendingNonce: number, readAt: Date) =>
      reserveNonce({ chainId: 1, sender: address, pendingNonce, readAt });
    expect(await reserveRead(5, at(0))).toBe(5);
    // Nonce 5 is mined meanwhile; a build that read 6 reserves first...
    expect(await reserveRead(6, at(20))).toBe(6);
    // ...then one whose read began before it, and still counted 5: not a dropped transaction.
    expect(await reserveRead(5, at(10))).toBe(7);
    expect(await reservations(1, address)).toEqual([6, 7]);
    // A read begun later that counts fewer is one: nonce 5 was dropped, and is handed out again.
    expect(await reserveRead(5, at(30))).toBe(5);
  });

  it('serves a batch from its freshest read (the highest count, of those the latest begun)', async () => {
    const address = sender();
    const reserver = new NonceReserver(connection.pool, 120);
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0, ms));
    expect(await reserver.reserve(1, address, read(4, at(50)), null)).toBe(4);
    const [, second, third] = await Promise.all([
      reserver.reserve(1, address, read(7, at(60)), null),
      // These two arrive while the first call is on its way, and go together: 8 read at 40 ms
      // (before the floor's read, but counting more) and 7 read at 70 ms.
      reserver.reserve(1, address, read(8, at(40)), null),
      reserver.reserve(1, address, read(7, at(70)), null),
    ]);
    expect([second, third]).toEqual([8, 9]);
    // The batch went from 8 (read at 40 ms); the floor keeps the latest start that set or
    // confirmed it, 60 ms: a read begun at 55 ms counting 7 is stale, one begun at 65 ms is not.
    expect(await reserver.reserve(1, address, read(7, at(55)), null)).toBe(10);
    expect(await reserver.reserve(1, address, read(7, at(65)), null)).toBe(7);
  });

  it('reuses the nonces freed by releases and by dropped transactions, and starts from the pending nonce once nothing is held', async () => {
    const address = sender();
    const hash = (i: number) => `0x${String(i).repeat(64)}`;
    for (const nonce of [0, 1, 2]) {
      await markNonceBroadcast(connection.pool, {
        chainId: 1,
        sender: address,
        nonce,
        transactionHash: hash(nonce),
      });
    }
    const next = () => reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    expect([await next(), await next()]).toEqual([3, 4]);
    expect(await freeNoncesOf(prisma, 1, [hash(1)])).toBe(1);
    expect(await releaseUnsentNonces(prisma, { chainId: 1, sender: address, from: 4 })).toEqual([4]);
    expect([await next(), await next(), await next()]).toEqual([1, 4, 5]);
    // Deleted by hand (as the benchmarks do between phases): the next build starts again from the
    // pending nonce, not from where the deleted reservations ended.
    await prisma.nonceReservation.deleteMany({ where: { sender: address } });
    expect(await next()).toBe(0);
  });

  it('fills holes below and between reservations before going past the last one', async () => {
    const address = sender();
    for (const nonce of [2, 3, 5]) {
      await markNonceBroadcast(connection.pool, {
        chainId: 1,
        sender: address,
        nonce,
        transactionHash: `0x${'ef'.repeat(32)}`,
      });
    }
    const next = () => reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    expect([await next(), await next(), await next(), await next()]).toEqual([0, 1, 4, 6]);
    expect(await reservations(1, address)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('reserves a batch in one call: consecutive nonces after what is held, holes first', async () => {
    const address = sender();
    await markNonceBroadcast(connection.pool, {
      chainId: 1,
      sender: address,
      nonce: 1,
      transactionHash: `0x${'ef'.repeat(32)}`,
    });
    expect(
      await reserveNonces(connection.pool, {
        chainId: 1,
        sender: address,
        pendingNonce: 0,
        callHashes: [null, null, null, null],
      }),
    ).toEqual([0, 2, 3, 4]);
    expect(
      await reserveNonces(connection.pool, {
        chainId: 1,
        sender: address,
        pendingNonce: 0,
        callHashes: [null, null],
      }),
    ).toEqual([5, 6]);
  });

  it('serves concurrent builds of one sender together, in arrival order, from the highest pending nonce seen', async () => {
    const address = sender();
    const reserver = new NonceReserver(connection.pool, 120);
    const nonces = await Promise.all(
      Array.from({ length: 20 }, (_, i) => reserver.reserve(1, address, read(i < 10 ? 3 : 5), null)),
    );
    // The first build went alone (pending 3); the 19 that arrived meanwhile, together (pending 5).
    expect(nonces).toEqual([3, ...Array.from({ length: 19 }, (_, i) => 5 + i)]);
    expect(await reservations(1, address)).toEqual(Array.from({ length: 19 }, (_, i) => 5 + i));
  });

  it('sets the lease from the TTL', async () => {
    const address = sender();
    await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0, ttlSeconds: 30 });
    const [row] = await prisma.nonceReservation.findMany({ where: { sender: address } });
    const lease = row.expiresAt.getTime() - row.reservedAt.getTime();
    expect(lease).toBe(30_000);
    expect(row.transactionHash).toBeNull();
  });

  it('marks a broadcast nonce and renews its lease (or records one built elsewhere)', async () => {
    const address = sender();
    const hash = `0x${'ab'.repeat(32)}`;
    await reserveNonce({ chainId: 1, sender: address, pendingNonce: 5, ttlSeconds: 1 });
    await markNonceBroadcast(connection.pool, {
      chainId: 1,
      sender: address,
      nonce: 5,
      transactionHash: hash,
      ttlSeconds: 60,
    });
    await markNonceBroadcast(connection.pool, {
      chainId: 1,
      sender: address,
      nonce: 6,
      transactionHash: hash,
    });
    const rows = await prisma.nonceReservation.findMany({
      where: { sender: address },
      orderBy: { nonce: 'asc' },
    });
    expect(rows.map((row) => [Number(row.nonce), row.transactionHash])).toEqual([
      [5, hash],
      [6, hash],
    ]);
    expect(rows[0].expiresAt.getTime() - Date.now()).toBeGreaterThan(50_000);
    // Broadcast but not yet counted by the node: not handed out again.
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 5 })).toBe(7);
  });

  it('frees a broadcast nonce whose renewed lease ran out (the node dropped the transaction)', async () => {
    const address = sender();
    await markNonceBroadcast(connection.pool, {
      chainId: 1,
      sender: address,
      nonce: 3,
      transactionHash: `0x${'cd'.repeat(32)}`,
    });
    await prisma.nonceReservation.updateMany({
      where: { sender: address },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 3 })).toBe(3);
  });

  it('remembers which call each nonce was reserved for, and for whom (rule 7)', async () => {
    const [alice, bob] = [sender(), sender()];
    const app = Wallet.createRandom().address;
    const createApp = buildCallHash(app, '0x1234');
    expect(buildCallHash(app.toLowerCase(), '0x1234')).toBe(createApp);
    expect(buildCallHash(app, '0x1235')).not.toBe(createApp);
    const reserver = new NonceReserver(connection.pool, 120);
    expect(await reserver.reserve(7, alice, read(4), createApp)).toBe(4);
    expect(await reserver.reserve(7, alice, read(4), buildCallHash(app, '0xff'))).toBe(5);
    expect(await reserver.reserve(7, bob, read(4), createApp)).toBe(4);
    const builders = async (params: Parameters<typeof buildersOf>[0]) => {
      const [row] = await prisma.$queryRaw<{ senders: string[] }[]>`SELECT ${buildersOf(params)} AS senders`;
      return row!.senders;
    };
    expect((await builders({ chainId: 7, nonce: 4, callHash: createApp })).sort()).toEqual(
      [alice, bob].sort(),
    );
    expect(await builders({ chainId: 7, nonce: 5, callHash: createApp })).toEqual([]);
    expect(await builders({ chainId: 8, nonce: 4, callHash: createApp })).toEqual([]);
  });

  it('keeps the count form of laurel_reserve_nonces working for processes of the version before', async () => {
    const address = sender();
    const { rows } = await connection.pool.query<{ nonce: string }>(
      'SELECT laurel_reserve_nonces(1, $1::varchar, 2, 120, 3) AS nonce',
      [address],
    );
    expect(rows.map((row) => Number(row.nonce))).toEqual([2, 3, 4]);
    expect(await reservations(1, address)).toEqual([2, 3, 4]);
  });

  it('releases every unsent reservation of a sender, and only those (rule 6)', async () => {
    const [address, other] = [sender(), sender()];
    for (let i = 0; i < 4; i++) await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 });
    await reserveNonce({ chainId: 1, sender: other, pendingNonce: 0 });
    await markNonceBroadcast(connection.pool, {
      chainId: 1,
      sender: address,
      nonce: 1,
      transactionHash: `0x${'ab'.repeat(32)}`,
    });
    expect(await releaseUnsentNonces(prisma, { chainId: 1, sender: address, from: 0 })).toEqual([0, 2, 3]);
    expect(await reservations(1, address)).toEqual([1]);
    expect(await reservations(1, other)).toEqual([0]);
    expect(await reserveNonce({ chainId: 1, sender: address, pendingNonce: 0 })).toBe(0);
    expect(await releaseUnsentNonces(prisma, { chainId: 1, sender: address, from: 0, to: 1 })).toEqual([0]);
  });
});
