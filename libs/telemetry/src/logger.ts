import pino, { type Logger } from 'pino';

/** Paths that may carry credentials; pino replaces their values before a line is written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-secret"]',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'webhook_secret',
  '*.webhook_secret',
  'api_secret',
  '*.api_secret',
  'cashier_key',
  '*.cashier_key',
  'session_token',
  '*.session_token',
  'token',
  '*.token',
];

/** The JSON logger every service uses, tagged with the service name and with secrets redacted. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type { Logger };
