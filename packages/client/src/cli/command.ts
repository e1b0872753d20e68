/** One command of the `laurel` command-line tool (../cli.ts). */
export interface CliCommand {
  name: string;
  /** One line for `laurel help`. */
  summary: string;
  /** The command's own help: its options and an example. */
  usage: string;
  /** Runs with the arguments after the command's name; resolves to the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Where a command writes, and its environment (tests pass their own). */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  env: Record<string, string | undefined>;
  /** Resolves when the user stops a long-running command (Ctrl-C). */
  stopped: Promise<void>;
}

/** A refusal the command explains in one line, without a stack trace. */
export class CliFailure extends Error {}
