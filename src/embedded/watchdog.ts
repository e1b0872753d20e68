/**
 * Ties Laurel's child processes (embedded PostgreSQL, anvil) to the node process, however it dies
 * (SIGKILL, the OOM killer, a crash): a detached `sh` holds the read end of a pipe whose write end
 * only this process has. When this process is gone the pipe reaches end-of-file and the watchdog
 * stops every child still registered (each with its own signal: PostgreSQL's fast shutdown, anvil's
 * SIGTERM that dumps its state), then SIGKILLs whatever is left after 10 s. A child stopped by
 * Laurel itself is unregistered first, so the watchdog never signals a recycled pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** Its `$0`, so `ps` shows what it is (and tests can find it). */
export const WATCHDOG_NAME = 'laurel-watchdog';

const WATCHDOG_SCRIPT = `
children=""
while IFS=' ' read -r op pid sig; do
  case "$op" in
    +) children="$children $pid:$sig" ;;
    -) kept=""; for c in $children; do [ "\${c%%:*}" = "$pid" ] || kept="$kept $c"; done; children="$kept" ;;
  esac
done
[ -z "$children" ] && exit 0
for c in $children; do kill -s "\${c#*:}" "\${c%%:*}" 2>/dev/null; done
tries=0
while [ $tries -lt 50 ]; do
  alive=""
  for c in $children; do kill -0 "\${c%%:*}" 2>/dev/null && alive="$alive $c"; done
  [ -z "$alive" ] && exit 0
  children="$alive"; tries=$((tries + 1)); sleep 0.2
done
for c in $children; do kill -s KILL "\${c%%:*}" 2>/dev/null; done
`;

let watchdog: { process: ChildProcess; input: Writable } | undefined;

function watchdogInput(): Writable | undefined {
  if (process.platform === 'win32') return undefined;
  if (!watchdog) {
    // Detached: its own process group, so a Ctrl-C or a signal to Laurel's group does not stop it
    // before it has done its work.
    const child = spawn('sh', ['-c', WATCHDOG_SCRIPT, WATCHDOG_NAME, String(process.pid)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const input = child.stdin!;
    // The watchdog must never keep Laurel alive, and a watchdog that died must not crash it.
    child.unref();
    (input as Writable & { unref?: () => void }).unref?.();
    input.on('error', () => undefined);
    child.on('error', () => undefined);
    watchdog = { process: child, input };
  }
  return watchdog.input;
}

/** Stops `pid` with `signal` if this process dies before calling the returned release function. */
export function guardChildProcess(pid: number, signal: 'SIGINT' | 'SIGTERM'): () => void {
  const input = watchdogInput();
  input?.write(`+ ${pid} ${signal.slice(3)}\n`);
  return () => {
    input?.write(`- ${pid}\n`);
  };
}
