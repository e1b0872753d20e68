#!/usr/bin/env node
/** `laurel`: what a newcomer otherwise writes code for. `laurel help` lists the commands. */
import { runCli } from './cli/run.js';

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
