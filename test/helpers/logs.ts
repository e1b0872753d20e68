import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger';

/** A stream that keeps each line written to it in `lines` (a logger's destination). */
export function linesInto(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
}

/** Laurel's logger at `level`, its lines kept in `lines` for the test to read. */
export function loggerInto(level: string, lines: string[]): Logger {
  return createLogger(level, { destination: linesInto(lines) });
}
