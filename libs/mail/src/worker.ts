import { randomInt } from 'node:crypto';
import type { Logger, Registry } from '@pl/telemetry';
import type { MailSettings } from './config';
import { domainOfSender } from './config';
import { mailMetrics, type MailMetrics } from './metrics';
import type { ClaimedMail, MailQueue } from './queue';
import { renderMail } from './render';
import { failureOf, secretsOf, type MailSender } from './transport';

/**
 * The steps where the crash tests may stop a worker (docs/adr/0017-crash-points-behind-a-port.md):
 * - `mail.claimed`: the mail is leased, nothing sent;
 * - `mail.sent`: the SMTP server accepted it, and it is not yet marked sent.
 */
export type MailCrashPoint = 'mail.claimed' | 'mail.sent';

export interface MailCrashPoints {
  reached(point: MailCrashPoint): void;
}

export const NO_MAIL_CRASH_POINTS: MailCrashPoints = { reached: () => undefined };

/** Mails claimed at once, and sent side by side (one SMTP connection each). */
const BATCH = 5;
/** How often a worker forgets the sent mails older than a week. */
const FORGET_EVERY_MS = 3_600_000;

export interface MailWorkerOptions {
  queue: MailQueue;
  sender: MailSender;
  settings: Omit<MailSettings, 'SMTP_URL'> & { SMTP_URL?: string };
  log: Logger;
  metrics?: Registry;
  crashPoints?: MailCrashPoints;
}

/**
 * Sends the queued mail: claims what is due (several replicas claim side by side, each mail once per lease),
 * renders it, hands it to SMTP and marks it sent. A failed attempt waits an exponential back-off, up to
 * MAIL_MAX_ATTEMPTS; a refusal of the mail itself ends it at once. A worker that dies mid-send leaves its mail
 * leased; another claims it once the lease is over and sends it again: delivery is at least once, and a repeat
 * has the same Message-ID (docs/adr/0021-mail-queue.md). Never logs a mail's params, body or recipient.
 */
export class MailWorker {
  private readonly metrics: MailMetrics | undefined;
  private readonly secrets: string[];
  private readonly messageDomain: string;
  private running: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private lastForget = 0;

  constructor(private readonly options: MailWorkerOptions) {
    this.metrics = options.metrics ? mailMetrics(options.metrics, options.queue) : undefined;
    this.secrets = options.settings.SMTP_URL ? secretsOf(options.settings.SMTP_URL) : [];
    this.messageDomain = domainOfSender(options.settings.MAIL_FROM);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Claims nothing more, lets the sends under way finish (bounded by the SMTP time-outs), closes the transport. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    this.options.sender.close();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let claimed: ClaimedMail[];
      try {
        await this.forgetOldSent();
        claimed = await this.options.queue.claim(BATCH, this.options.settings.MAIL_LEASE_MS);
      } catch (err) {
        this.options.log.warn({ err }, 'mail queue unavailable; retrying');
        await this.idle();
        continue;
      }
      if (claimed.length === 0) {
        await this.idle();
        continue;
      }
      await Promise.all(claimed.map((mail) => this.deliver(mail)));
    }
  }

  private idle(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.options.settings.MAIL_POLL_INTERVAL_MS);
      this.wake = done;
    });
  }

  private async forgetOldSent(): Promise<void> {
    if (Date.now() - this.lastForget < FORGET_EVERY_MS) return;
    this.lastForget = Date.now();
    await this.options.queue.forgetOldSent();
  }

  private async deliver(mail: ClaimedMail): Promise<void> {
    const { queue, sender, log } = this.options;
    const crash = this.options.crashPoints ?? NO_MAIL_CRASH_POINTS;
    const about = { mail_id: mail.id, template: mail.template, attempt: mail.attempt };
    try {
      crash.reached('mail.claimed');
      let rendered;
      try {
        rendered = renderMail(mail.template, mail.language, mail.params, mail.createdAt);
      } catch (err) {
        // Enqueueing refuses such mail; one here was written by other means, and no retry can mend it.
        await queue.giveUp(mail.id, `cannot render: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300));
        this.metrics?.givenUp.inc({ template: mail.template, reason: 'unrenderable' });
        log.error(about, 'mail given up: it cannot be rendered');
        return;
      }
      try {
        await sender.send({ to: mail.recipient, ...rendered, messageId: `<${mail.id}@${this.messageDomain}>`, language: mail.language });
      } catch (err) {
        await this.failed(mail, err);
        return;
      }
      crash.reached('mail.sent');
      this.metrics?.sent.inc({ template: mail.template });
      await queue.markSent(mail.id);
      log.info(about, 'mail sent');
    } catch (err) {
      // The database went away while recording the outcome: the lease runs out and the mail is claimed again
      // (a repeat, if the server had taken it).
      log.warn({ ...about, err }, 'mail outcome not recorded; it is claimed again once its lease is over');
    }
  }

  private async failed(mail: ClaimedMail, err: unknown): Promise<void> {
    const { queue, log, settings } = this.options;
    const failure = failureOf(err, this.secrets);
    const about = { mail_id: mail.id, template: mail.template, attempt: mail.attempt, code: failure.code, response_code: failure.responseCode };
    this.metrics?.failedAttempts.inc({ template: mail.template });
    if (failure.permanent || mail.attempt >= settings.MAIL_MAX_ATTEMPTS) {
      await queue.giveUp(mail.id, failure.description);
      this.metrics?.givenUp.inc({ template: mail.template, reason: failure.permanent ? 'refused' : 'attempts' });
      log.error(about, failure.permanent ? 'mail given up: the server refused it for good' : 'mail given up: its last attempt failed');
      return;
    }
    const delayMs = backoffMs(mail.attempt, settings.MAIL_RETRY_FIRST_DELAY_MS, settings.MAIL_RETRY_MAX_DELAY_MS);
    await queue.retryLater(mail.id, delayMs, failure.description);
    log.warn({ ...about, retry_in_ms: delayMs }, 'mail not sent; retrying later');
  }
}

/** The wait after the n-th failed attempt: first × 2^(n-1), at most max, less up to a quarter (so retries spread out). */
export function backoffMs(attempt: number, firstMs: number, maxMs: number): number {
  const full = Math.min(maxMs, firstMs * 2 ** Math.min(attempt - 1, 30));
  return full - randomInt(0, Math.floor(full / 4) + 1);
}
