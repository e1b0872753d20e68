import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataFolderInUseError, lockDataFolder } from '../../src/embedded/data-folder';
import { processStartTime } from '../../src/embedded/processes';

describe('lockDataFolder', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'laurel-lock-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

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
