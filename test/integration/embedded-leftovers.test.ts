import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { processIsAlive } from '../../src/embedded/processes';
import { makeDataDir } from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * A postmaster killed outright (SIGKILL, the OOM killer) leaves its server processes behind: each
 * exits once it notices, or never if it is stuck, and while one lives PostgreSQL refuses to start
 * on that folder ("pre-existing shared memory block is still in use"). Laurel stops them before it
 * starts the server: at its own start, and when its supervisor restarts a crashed server. Here the
 * left-over process is a session stopped with SIGSTOP: it never exits by itself.
 */
let dataDir: string;
let stuck: number | undefined;

beforeEach(() => {
  dataDir = makeDataDir();
});

afterEach(() => {
  if (stuck !== undefined && processIsAlive(stuck)) process.kill(stuck, 'SIGKILL');
  stuck = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

/** The report of the left-over server processes stopped, if it names `pid` (others may have been left too). */
const stoppedReport = (reports: string[], pid: number) =>
  reports.find(
    (line) =>
      line.startsWith('stopped server processes of a killed PostgreSQL left running (pids ') &&
      /\(pids ([\d, ]+)\)/.exec(line)![1]!.split(', ').includes(String(pid)),
  );

/** Opens a session, stops its server process with SIGSTOP, then SIGKILLs the postmaster. */
async function killWithStuckSession(database: EmbeddedPostgresHandle): Promise<number> {
  const client = new Client({ connectionString: database.databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
  stuck = pid;
  process.kill(pid, 'SIGSTOP');
  const postmaster = database.pid;
  process.kill(postmaster, 'SIGKILL');
  await waitUntil('the postmaster gone', () => !processIsAlive(postmaster));
  void client.end().catch(() => undefined);
  return pid;
}

async function selectOne(database: EmbeddedPostgresHandle): Promise<unknown> {
  const client = new Client({ connectionString: database.databaseUrl });
  await client.connect();
  try {
    return (await client.query('SELECT 1 AS one')).rows;
  } finally {
    await client.end();
  }
}

it('starts on a folder whose killed postmaster left a server process behind, and says so', async () => {
  const options = { dataDir, database: 'laurel', persistent: false, supervise: false };
  const left = await killWithStuckSession(await startEmbeddedPostgres(options));

  const reports: string[] = [];
  const database = await startEmbeddedPostgres({ ...options, report: (_level, line) => reports.push(line) });
  try {
    expect(processIsAlive(left)).toBe(false);
    expect(reports).toHaveLength(1);
    expect(stoppedReport(reports, left)).toBeDefined();
    expect(await selectOne(database)).toEqual([{ one: 1 }]);
  } finally {
    await database.stop();
  }
});

it('restarts a killed server whose server process is stuck, when supervised', async () => {
  const reports: string[] = [];
  const database = await startEmbeddedPostgres({
    dataDir,
    database: 'laurel',
    persistent: false,
    report: (_level, line) => reports.push(line),
  });
  try {
    const left = await killWithStuckSession(database);
    await waitUntil('the server restarted', () =>
      reports.some((line) => line.startsWith('PostgreSQL restarted')),
    );
    expect(processIsAlive(left)).toBe(false);
    expect(stoppedReport(reports, left)).toBeDefined();
    expect(reports.filter((line) => line.includes('did not restart'))).toEqual([]);
    expect(await selectOne(database)).toEqual([{ one: 1 }]);
  } finally {
    await database.stop();
  }
});
