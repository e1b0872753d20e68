import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export interface LoggerOptions {
  /**
   * Strings that must never reach the logs whatever object carries them, e.g. RPC URLs (they often
   * embed a provider's API key, and ethers errors quote them).
   */
  secrets?: readonly string[];
  /** Where lines go (default: stdout). */
  destination?: DestinationStream;
  /** Human-readable lines (pino-pretty) instead of JSON: for a terminal. */
  pretty?: boolean;
}

/** A destination that writes each line with every secret replaced. */
function redactingDestination(secrets: readonly string[], destination: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      let redacted = line;
      for (const secret of secrets) redacted = redacted.replaceAll(secret, '[redacted]');
      destination.write(redacted);
    },
  };
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const destination =
    options.destination ??
    (options.pretty
      ? pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
      : pino.destination(1));
  const secrets = (options.secrets ?? []).filter((secret) => secret.length > 0);
  return pino(
    {
      level,
      base: undefined,
      // Keys, signatures and secrets never reach the logs.
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'headers["x-api-key"]',
          '*.api_key',
          '*.signature',
          '*.webhook_secret',
        ],
        censor: '[redacted]',
      },
    },
    secrets.length ? redactingDestination(secrets, destination) : destination,
  );
}
