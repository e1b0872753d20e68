/** The commands of `laurel`, in the order `laurel help` lists them. */
import type { CliCommand } from './command.js';
import { follow } from './follow.js';
import { keyCommand } from './key.js';
import { listen } from './listen.js';

export const commands: readonly CliCommand[] = [keyCommand, listen, follow];
