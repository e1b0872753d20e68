import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { processStatFields } from '../../src/embedded/processes';

/** Clock ticks per second of /proc's CPU times. */
let ticksPerSecond: number | undefined;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime: this process and its waited-for children, in ticks. */
  ticks: number;
}

/** Fields 4 (ppid) and 14-17 (CPU times) of /proc/<pid>/stat; undefined once the process has exited. */
function readStat(pid: number): ProcStat | undefined {
  const fields = processStatFields(pid);
  if (!fields) return undefined;
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((index) => Number(fields[index]));
  return { pid, ppid: Number(fields[1]), ticks: utime! + stime! + cutime! + cstime! };
}

/**
 * CPU seconds used so far by the process trees rooted at `roots` (each process, its live
 * descendants and the children they have waited for, e.g. PostgreSQL's ended backends), from Linux's
 * /proc; undefined elsewhere. The difference of two readings is the CPU a phase cost.
 */
export function processTreeCpuSeconds(roots: number[]): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const stat of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  let ticks = 0;
  const pending = all.filter((stat) => roots.includes(stat.pid));
  for (let stat = pending.pop(); stat; stat = pending.pop()) {
    ticks += stat.ticks;
    pending.push(...(children.get(stat.pid) ?? []));
  }
  return ticks / ticksPerSecond;
}

/**
 * CPU seconds used so far by each named process: `'self'` is this process alone (its children
 * are named apart), a pid its process tree (processTreeCpuSeconds; 0 off Linux). The difference of
 * two readings is what a phase cost each of them.
 */
export function cpuSecondsOf<K extends string>(processes: Record<K, number | 'self'>): Record<K, number> {
  const seconds = {} as Record<K, number>;
  for (const name of Object.keys(processes) as K[]) {
    const pid = processes[name];
    if (pid === 'self') {
      const { user, system } = process.cpuUsage();
      seconds[name] = (user + system) / 1e6;
    } else seconds[name] = processTreeCpuSeconds([pid]) ?? 0;
  }
  return seconds;
}
