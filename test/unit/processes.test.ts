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
    // Perl forks a child that exits at once and never waits for it: a zombie for as long as the
    // parent sleeps. (A shell may reap its background child before it execs, leaving no zombie.)
    const parent = spawn(
      'perl',
      ['-e', '$| = 1; my $pid = fork() // die; exit 0 if $pid == 0; print "$pid\n"; sleep 60'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    try {
      const pid = await new Promise<number>((resolve) =>
        parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      await waitUntil(
        'the forked child to exit and stay unreaped, in the process table yet not alive',
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
