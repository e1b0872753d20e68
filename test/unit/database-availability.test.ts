import { Writable } from 'node:stream';
import pino from 'pino';
import { connectDatabase } from '../../src/db/prisma';
import { isDatabaseUnavailable } from '../../src/db/availability';
import { ThrottledLog } from '../../src/logger';

describe('isDatabaseUnavailable', () => {
  it('recognises what Prisma and node-postgres throw when the server is gone', async () => {
    // Nothing listens on port 1: the errors Prisma really raises for an unreachable server.
    const { prisma, pool } = connectDatabase('postgresql://postgres:x@127.0.0.1:1/laurel');
    try {
      const raw = await prisma.$queryRaw`SELECT 1`.catch((error: unknown) => error);
      const model = await prisma.apiKey.findFirst().catch((error: unknown) => error);
      const transaction = await prisma.$transaction(async (db) => db.apiKey.count()).catch((e: unknown) => e);
      for (const error of [raw, model, transaction]) expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect(isDatabaseUnavailable(shutdown)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('x', { cause: { code: 'ECONNRESET' } }))).toBe(true);
    const closed = Object.assign(new Error('database "laurel" is not currently accepting connections'), {
      code: '55000',
    });
    expect(isDatabaseUnavailable(closed)).toBe(true);
  });

  it('leaves faults of the query itself alone', () => {
    const uniqueViolation = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isDatabaseUnavailable(uniqueViolation)).toBe(false);
    const sameClass = Object.assign(new Error('currval of sequence "s" is not yet defined in this session'), {
      code: '55000',
    });
    expect(isDatabaseUnavailable(sameClass)).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('undefined is not a function'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe('ThrottledLog', () => {
  it('logs a kind once per interval and counts what it left out', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const log = pino({ level: 'warn' }, sink);
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const throttled = new ThrottledLog(log, 10_000);
      for (let i = 0; i < 50; i++)
        throttled.write('warn', 'database_unavailable', {}, 'database unavailable');
      throttled.write('warn', 'other', {}, 'another fault');
      now += 10_000;
      throttled.write('warn', 'database_unavailable', {}, 'database unavailable');
    } finally {
      jest.restoreAllMocks();
    }
    expect(lines.map(({ kind, msg, suppressed }) => ({ kind, msg, suppressed }))).toEqual([
      { kind: 'database_unavailable', msg: 'database unavailable', suppressed: undefined },
      { kind: 'other', msg: 'another fault', suppressed: undefined },
      { kind: 'database_unavailable', msg: 'database unavailable', suppressed: 49 },
    ]);
  });
});
