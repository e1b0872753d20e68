import { fork, type ChildProcess } from 'node:child_process';

/** A benchmark's child process on an IPC channel, started by forkWithIpc. */
export interface IpcChild<Ready> {
  child: ChildProcess;
  /** The first message the child sent: that it is ready, and what the parent needs of it. */
  ready: Ready;
  /** Disconnects the channel (the child's cue to end) and resolves once the child has exited. */
  stop: () => Promise<void>;
}

/** Forks `file` with `args` and an IPC channel; resolves once the child sends its first message. */
export async function forkWithIpc<Ready>(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<IpcChild<Ready>> {
  const child = fork(file, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (message: Ready) => resolve(message));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return {
    child,
    ready,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/**
 * A benchmark's entry point: `child(<argument after --child>)` in the child processes it starts
 * with `--child`, else `main()`, which exits the process when done (its servers and clients may
 * hold it open). Either one's error is printed and exits with 1.
 */
export function runBenchmark(
  main: () => Promise<void>,
  child: (kind: string | undefined) => Promise<void>,
): void {
  const fail = (error: unknown) => {
    console.error(error);
    process.exit(1);
  };
  const childIndex = process.argv.indexOf('--child');
  if (childIndex >= 0) void child(process.argv[childIndex + 1]).catch(fail);
  else main().then(() => process.exit(0), fail);
}
