import { Writable } from 'node:stream';
import pino from 'pino';
import { connectDatabase } from '../../src/db/prisma';
import { DatabaseError } from 'pg';
import {
  databaseRefusesWrites,
  databaseUnavailableReason,
  isDatabaseUnavailable,
  isRefusedForItsState,
} from '../../src/db/availability';
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

  /** An error as node-postgres makes it from the server's answer. */
  const answered = (code: string, message: string) =>
    Object.assign(new DatabaseError(message, 0, 'error'), { code, severity: 'ERROR' });

  it('recognises a server that answers and refuses for its own state, and says why', () => {
    const refusals: [string, string][] = [
      ['25006', 'cannot execute INSERT in a read-only transaction'],
      ['53100', 'could not extend file "base/16384/16400": No space left on device'],
      ['53200', 'out of memory'],
      ['57014', 'canceling statement due to statement timeout'],
      ['55P03', 'canceling statement due to lock timeout'],
      ['58030', 'could not read block 0 in file "base/16384/16400": Input/output error'],
      ['XX001', 'invalid page in block 0 of relation base/16384/16400'],
    ];
    for (const [code, message] of refusals) {
      const error = answered(code, message);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(isRefusedForItsState(error)).toBe(true);
      expect(databaseUnavailableReason(error)).toBe(`${code}: ${message}`);
    }
    // As Prisma wraps it: the reason is the server's, not Prisma's invocation text.
    const wrapped = Object.assign(
      new Error('\nInvalid `prisma.$executeRaw()` invocation:\n\nRaw query failed.'),
      {
        code: 'P2010',
        meta: {
          driverAdapterError: {
            cause: {
              originalCode: '25006',
              originalMessage: 'cannot execute UPDATE in a read-only transaction',
            },
          },
        },
      },
    );
    expect(databaseUnavailableReason(wrapped)).toBe(
      '25006: cannot execute UPDATE in a read-only transaction',
    );
    // Of those, the refusals of writes only: reads still work, so what a read writes on the side gives way.
    expect(refusals.filter(([code, message]) => databaseRefusesWrites(answered(code, message)))).toEqual([
      refusals[0],
      refusals[1],
    ]);
    expect(databaseRefusesWrites(wrapped)).toBe(true);
    expect(
      databaseRefusesWrites(answered('57P01', 'terminating connection due to administrator command')),
    ).toBe(false);
    expect(databaseRefusesWrites(answered('23505', 'duplicate key'))).toBe(false);
    // Connections the server would not make: unavailable, not refused for its state.
    for (const [code, message] of [
      ['28P01', 'password authentication failed for user "laurel"'],
      ['28000', 'no pg_hba.conf entry for host "10.0.0.5", user "laurel", database "laurel"'],
      ['3D000', 'database "laurel" does not exist'],
    ]) {
      expect(databaseUnavailableReason(answered(code!, message!))).toBe(`${code}: ${message}`);
      expect(isRefusedForItsState(answered(code!, message!))).toBe(false);
    }
    // A lost connection is not a refusal: a new connection may fare better.
    const shutdown = answered('57P01', 'terminating connection due to administrator command');
    expect(isDatabaseUnavailable(shutdown)).toBe(true);
    expect(isRefusedForItsState(shutdown)).toBe(false);
    expect(databaseUnavailableReason(new Error('Connection terminated unexpectedly'))).toBe(
      'Connection terminated unexpectedly',
    );
  });

  it('leaves faults of the query itself alone', () => {
    const uniqueViolation = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isDatabaseUnavailable(uniqueViolation)).toBe(false);
    const sameClass = Object.assign(new Error('currval of sequence "s" is not yet defined in this session'), {
      code: '55000',
    });
    expect(isDatabaseUnavailable(sameClass)).toBe(false);
    for (const code of ['42P01', '40001', '40P01', 'XX000']) {
      const error = answered(code, 'a fault of the statement or of Laurel');
      expect(isDatabaseUnavailable(error)).toBe(false);
      expect(isRefusedForItsState(error)).toBe(false);
    }
    expect(isDatabaseUnavailable(new TypeError('undefined is not a function'))).toBe(false);
    expect(databaseUnavailableReason(uniqueViolation)).toBeNull();
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
