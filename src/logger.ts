import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
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
  });
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
