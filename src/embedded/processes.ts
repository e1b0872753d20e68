/** Facts about other processes by pid (liveness, command line, start time), and stopping one. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Whether `pid` is a running process. A zombie (exited, not yet reaped by its parent: an orphan
 * whose new parent does not wait for it) has stopped for good, and counts as gone.
 */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user (the `postgres` user, for instance).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processStatFields(pid)?.[0]; // field 3
  return state !== 'Z' && state !== 'X';
}

/** The process's command line (Linux /proc), or undefined where that cannot be read. */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return undefined;
  }
}

/** When the process started, in clock ticks since boot (Linux /proc): tells a recycled pid apart. */
export function processStartTime(pid: number): string | undefined {
  return processStatFields(pid)?.[19]; // field 22
}

/**
 * The fields of /proc/<pid>/stat from the third (the state) on, or undefined where that cannot be
 * read. They follow the command name, which may hold spaces and parentheses.
 */
export function processStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs a program whose command line contains every one of `marks` (true where unknown). */
export function processMatches(pid: number, marks: string[]): boolean {
  if (!processIsAlive(pid)) return false;
  const commandLine = processCommandLine(pid);
  return commandLine === undefined || marks.every((mark) => commandLine.includes(mark));
}

/** Sends `signal`, waits up to `timeoutMs` for the process to go, then SIGKILLs it. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  const send = (which: NodeJS.Signals) => {
    try {
      process.kill(pid, which);
    } catch {
      // already gone
    }
  };
  send(signal);
  const deadline = Date.now() + timeoutMs;
  while (processIsAlive(pid)) {
    if (Date.now() > deadline) {
      send('SIGKILL');
      const killDeadline = Date.now() + 5000;
      while (processIsAlive(pid) && Date.now() < killDeadline) await sleep(50);
      return;
    }
    await sleep(50);
  }
}

/** Every process's pid, from Linux /proc (none where it cannot be read). */
export function processIds(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The processes whose working directory is `directory` (an absolute path without symbolic links),
 * from Linux /proc; a process of another user is left out unless this one runs as root.
 */
export function processesWorkingIn(directory: string): number[] {
  return processIds().filter((pid) => workingDirectory(pid) === directory);
}

function workingDirectory(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
