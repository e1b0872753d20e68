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
  // Synchronous: each line is written when it is logged, so lines keep their order (on a
  // terminal, with the start-up lines of console.log too) and none is left behind at exit. An
  // asynchronous destination queues its writes on libuv's thread pool, behind DNS lookups and file
  // reads, and at exit writes what it buffered ahead of the write under way, or without it
  // (sonic-boom#101).
  const destination =
    options.destination ??
    (options.pretty
      ? pretty({
          colorize: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
          singleLine: true,
          sync: true,
        })
      : pino.destination({ dest: 1, sync: true }));
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

/** How often one kind of recurring error (database down, node unreachable) is logged at most. */
export const REPEATED_ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * Logs each kind of recurring fault at most once per interval, so an outage gives a few lines
 * instead of one per request; the next line of a kind counts the ones left out (`suppressed`).
 */
export class ThrottledLog {
  private readonly lastByKind = new Map<string, { loggedAt: number; suppressed: number }>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = REPEATED_ERROR_LOG_INTERVAL_MS,
  ) {}

  write(level: 'error' | 'warn', kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    const last = this.lastByKind.get(kind);
    if (last && now - last.loggedAt < this.intervalMs) {
      last.suppressed += 1;
      return;
    }
    const suppressed = last?.suppressed ?? 0;
    this.lastByKind.set(kind, { loggedAt: now, suppressed: 0 });
    this.log[level]({ ...fields, kind, ...(suppressed ? { suppressed } : {}) }, message);
  }
}
