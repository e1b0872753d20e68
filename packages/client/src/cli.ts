#!/usr/bin/env node
/**
 * `laurel`: what a newcomer otherwise writes code for. `laurel help` lists the commands.
 */
import { CliFailure, type CliIo } from './cli/command.js';
import { commands } from './cli/commands.js';
import { LaurelError } from './errors.js';

function help(io: CliIo): void {
  io.out('usage: laurel <command> [options]   (LAUREL_URL, default http://127.0.0.1:4000)');
  io.out('');
  for (const command of commands) io.out(`  ${command.name.padEnd(10)} ${command.summary}`);
  io.out('');
  io.out('laurel <command> --help shows its options.');
}

/** Runs `laurel <args>`; resolves to the exit code. */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    help(io);
    return name ? 0 : 2;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.err(`laurel: no command "${name}" (laurel help lists them)`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof CliFailure || error instanceof LaurelError) {
      io.err(`laurel ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

const isMain =
  typeof process !== 'undefined' &&
  process.argv[1] !== undefined &&
  import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  runCli(process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    env: process.env,
    stopped,
  }).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
