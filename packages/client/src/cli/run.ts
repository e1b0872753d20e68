/** `laurel <args>`: finds the command and runs it; a refusal is one line on stderr, not a stack. */
import { LaurelError } from '../errors.js';
import { CliFailure, type CliIo } from './command.js';
import { commands } from './commands.js';

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
