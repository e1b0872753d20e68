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
