/**
 * Who owns a data folder (DATA_DIR): one Laurel at a time, recorded in `<folder>/laurel.pid`
 * (pid and start time, so a recycled pid is not mistaken for a live owner). Whatever a Laurel that
 * died left running on the folder (a postmaster, an anvil) is an orphan the next start stops.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { processIsAlive, processMatches, processStartTime, stopProcess } from './processes';
import { makeFolder } from '../make-folder';

export class DataFolderInUseError extends Error {
  override name = 'DataFolderInUseError';
  constructor(
    readonly ownerPid: number,
    folder: string,
  ) {
    super(`another Laurel (pid ${ownerPid}) is using ${folder}`);
  }
}

interface LockRecord {
  pid: number;
  startTime?: string;
}

async function readLock(file: string): Promise<LockRecord | null> {
  try {
    const record = JSON.parse(await fs.readFile(file, 'utf8')) as LockRecord;
    return typeof record.pid === 'number' ? record : null;
  } catch {
    return null;
  }
}

function ownerIsAlive(record: LockRecord): boolean {
  if (record.pid === process.pid || !processIsAlive(record.pid)) return false;
  const startTime = processStartTime(record.pid);
  return record.startTime === undefined || startTime === undefined || startTime === record.startTime;
}

/**
 * Takes the folder for this process; throws DataFolderInUseError while a live Laurel holds it.
 * A lock left by a Laurel that died is taken over.
 */
export async function lockDataFolder(folder: string): Promise<{ release(): Promise<void> }> {
  await makeFolder(folder);
  const file = path.join(folder, 'laurel.pid');
  const record: LockRecord = { pid: process.pid, startTime: processStartTime(process.pid) };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fs.writeFile(file, JSON.stringify(record), { flag: 'wx' });
      return { release: () => fs.rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await readLock(file);
      if (holder && ownerIsAlive(holder)) throw new DataFolderInUseError(holder.pid, folder);
      await fs.rm(file, { force: true });
    }
  }
  throw new Error(`could not take ${file}: it keeps reappearing`);
}

async function pidFromFile(file: string): Promise<number | null> {
  try {
    const pid = Number((await fs.readFile(file, 'utf8')).split('\n')[0].trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Where anvil's pid is kept while it runs on a state file. */
export function anvilPidFile(stateFile: string): string {
  return path.join(path.dirname(stateFile), 'anvil.pid');
}

/**
 * Stops what a dead Laurel left running on its folder (call with the folder locked): the
 * postmaster of `postgresDataDirectory` (fast shutdown) and the anvil of `anvilStateFile`
 * (SIGTERM, so it saves its state). Returns what was stopped, e.g. `PostgreSQL (pid 123)`.
 */
export async function stopOrphans(options: {
  postgresDataDirectory?: string;
  anvilStateFile?: string;
}): Promise<string[]> {
  const stopped: string[] = [];
  if (options.postgresDataDirectory) {
    const lockFile = path.join(options.postgresDataDirectory, 'postmaster.pid');
    const pid = await pidFromFile(lockFile);
    const marks = ['postgres', options.postgresDataDirectory];
    if (pid && processMatches(pid, marks)) {
      await stopProcess(pid, 'SIGINT', 30_000);
      stopped.push(`PostgreSQL (pid ${pid})`);
    }
    // PostgreSQL refuses to start while the lock file's pid exists at all, and a killed postmaster
    // whose new parent does not reap it stays a zombie: once no postmaster of this folder runs
    // under that pid (gone, a zombie, or a recycled pid), the lock is stale.
    if (pid && !processMatches(pid, marks)) await fs.rm(lockFile, { force: true });
  }
  if (options.anvilStateFile) {
    const pidFile = anvilPidFile(options.anvilStateFile);
    const pid = await pidFromFile(pidFile);
    if (pid && processMatches(pid, ['anvil', options.anvilStateFile])) {
      await stopProcess(pid, 'SIGTERM', 15_000);
      stopped.push(`anvil (pid ${pid})`);
    }
    await fs.rm(pidFile, { force: true });
  }
  return stopped;
}
