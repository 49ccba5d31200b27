import { z } from 'zod';
import { intSetting } from '@pl/config';

/** `name <address>` or a bare address; the domain names the Message-IDs of the mails sent. */
const FROM = /^(?:[^<>\r\n]*<([^<>\s@]+@([^<>\s@]+))>|([^<>\s@]+@([^<>\s@]+)))$/;

/** The domain of MAIL_FROM's address (`no-reply@pay.example.com` → `pay.example.com`). */
export function domainOfSender(from: string): string {
  const m = FROM.exec(from.trim());
  return (m?.[2] ?? m?.[4] ?? 'localhost').toLowerCase();
}

/**
 * The mail settings, for the environment schema of the service that sends mail (the gateway). The defaults suit
 * `npm start` and tests: a catcher on 127.0.0.1:1025.
 */
export const mailEnv = {
  /**
   * `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://…:465` (TLS from the start).
   * Credentials in it are a secret: the deployments take it from their Secret, and it is never logged.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).default('smtp://127.0.0.1:1025'),
  /** The From of every mail: `Payment links <no-reply@pay.example.com>` or a bare address. */
  MAIL_FROM: z.string().trim().regex(FROM, 'must be an address, or a name and an address in <>').default('Payment links <no-reply@localhost>'),
  /** How often an idle worker looks for mail that came due (new mail, a retry's time, an expired lease). */
  MAIL_POLL_INTERVAL_MS: intSetting({ min: 10, max: 60_000, default: 1000 }),
  /**
   * How long a claimed mail is a worker's before another may claim it: longer than one SMTP conversation can take
   * (the transport's time-outs add up to 50 s), or two workers could send the same mail.
   */
  MAIL_LEASE_MS: intSetting({ min: 500, max: 3_600_000, default: 120_000 }),
  /** Back-off after a failed attempt: the first delay, doubled each time up to the cap, with jitter. */
  MAIL_RETRY_FIRST_DELAY_MS: intSetting({ min: 10, max: 3_600_000, default: 30_000 }),
  MAIL_RETRY_MAX_DELAY_MS: intSetting({ min: 10, max: 86_400_000, default: 1_800_000 }),
  /** Attempts before a mail is given up (about 2 hours of retries with the default delays). */
  MAIL_MAX_ATTEMPTS: intSetting({ min: 1, max: 100, default: 10 }),
};

/** The parsed {@link mailEnv} settings. */
export interface MailSettings {
  SMTP_URL: string;
  MAIL_FROM: string;
  MAIL_POLL_INTERVAL_MS: number;
  MAIL_LEASE_MS: number;
  MAIL_RETRY_FIRST_DELAY_MS: number;
  MAIL_RETRY_MAX_DELAY_MS: number;
  MAIL_MAX_ATTEMPTS: number;
}
