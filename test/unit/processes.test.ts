import { spawn } from 'node:child_process';
import { processIsAlive, stopProcess } from '../../src/embedded/processes';
import { waitUntil } from '../helpers/wait';

/** Whether `pid` has an entry in the process table (running, or exited and not yet reaped). */
function inProcessTable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('processIsAlive', () => {
  it('tells a running process from one that has exited', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    expect(processIsAlive(child.pid!)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    await waitUntil('the reaped child to be gone', () => !processIsAlive(child.pid!));
  });

  it('counts a zombie (exited, its parent never waits for it) as gone, and stopProcess does not wait on it', async () => {
    // `sleep 0` becomes the child of `sleep 60` (exec keeps the shell's pid and children), which
    // never reaps it: a zombie for as long as `sleep 60` runs.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    try {
      const pid = await new Promise<number>((resolve) =>
        parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      await waitUntil(
        'sleep 0 to exit and stay unreaped, in the process table yet not alive',
        () => inProcessTable(pid) && !processIsAlive(pid),
      );
      // With a deadline past the test's own timeout: counted as alive, it would be waited on until then.
      await stopProcess(pid, 'SIGTERM', 120_000);
      expect(inProcessTable(pid)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
      await exited;
    }
  });
});
