import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataFolderInUseError, lockDataFolder, stopOrphans } from '../../src/embedded/data-folder';
import { processStartTime, processStatFields } from '../../src/embedded/processes';
import { waitUntil } from '../helpers/wait';

describe('lockDataFolder', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-lock-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('makes the folder and its missing parents, and fails where none can be made', async () => {
    const nested = path.join(folder, 'a', 'b', 'c');
    await (await lockDataFolder(nested)).release();
    expect(existsSync(nested)).toBe(true);
    writeFileSync(path.join(folder, 'file'), '');
    await expect(lockDataFolder(path.join(folder, 'file', 'data'))).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    // /proc is there and takes no folder: Node's own recursive mkdir loops for ever on it.
    await expect(lockDataFolder('/proc/laurel-data')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a folder whose owner is alive, and takes it over once the owner is gone', async () => {
    const owner = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => owner.once('exit', resolve));
    try {
      writeFileSync(
        path.join(folder, 'laurel.pid'),
        JSON.stringify({ pid: owner.pid, startTime: processStartTime(owner.pid!) }),
      );
      const refused = await lockDataFolder(folder).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DataFolderInUseError);
      expect((refused as Error).message).toBe(`another Laurel (pid ${owner.pid}) is using ${folder}`);
    } finally {
      owner.kill('SIGKILL');
      await exited;
    }
    const lock = await lockDataFolder(folder);
    await lock.release();
  });

  it('does not mistake a recycled pid for the owner', async () => {
    // A live process (this one's parent) with another start time than the one recorded.
    writeFileSync(path.join(folder, 'laurel.pid'), JSON.stringify({ pid: process.ppid, startTime: '1' }));
    const lock = await lockDataFolder(folder);
    await lock.release();
  });
});

describe('stopOrphans', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-orphans-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('removes a postmaster.pid whose postmaster is a zombie (PostgreSQL would refuse to start on it)', async () => {
    // The forked child exits and stays a zombie: its parent, perl (Debian's perl-base is essential),
    // never reaps it. Not a shell's `sleep 0 & exec sleep 60`: the shell reaps a child that exits
    // before the exec (7 in 200 on a loaded machine), and no zombie ever appears.
    const parent = spawn(
      'perl',
      ['-e', 'my $child = fork // die; exit 0 unless $child; $| = 1; print "$child\\n"; sleep 60'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    try {
      const zombie = Number(
        await new Promise<string>((resolve) => parent.stdout!.once('data', (data) => resolve(String(data)))),
      );
      await waitUntil('the zombie', () => processStatFields(zombie)?.[0] === 'Z');
      const lockFile = path.join(folder, 'postmaster.pid');
      writeFileSync(lockFile, `${zombie}\n${folder}\n`);
      expect(await stopOrphans({ postgresDataDirectory: folder })).toEqual([]);
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      await exited;
    }
  });

  it('keeps no postmaster.pid whose pid now runs another program, and stops nothing', async () => {
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => other.once('exit', resolve));
    try {
      const lockFile = path.join(folder, 'postmaster.pid');
      writeFileSync(lockFile, `${other.pid}\n${folder}\n`);
      expect(await stopOrphans({ postgresDataDirectory: folder })).toEqual([]);
      expect(existsSync(lockFile)).toBe(false);
      expect(other.exitCode).toBeNull();
    } finally {
      other.kill('SIGKILL');
      await exited;
    }
  });
});
