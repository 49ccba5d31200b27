import nodemailer, { type NodemailerError } from 'nodemailer';

/** One mail as it goes over SMTP. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The same on every attempt, so a receiver (or a reader) can tell a repeat (docs/adr/0021-mail-queue.md). */
  messageId: string;
  language: string;
}

/** Hands mail to the mail server; a rejection is an Error that {@link failureOf} can read. */
export interface MailSender {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Time-outs of one SMTP conversation: they bound how long a send can take, which MAIL_LEASE_MS must exceed so no
 * other worker claims a mail while its send is still under way. Nodemailer's defaults are minutes.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

/** Sends through the SMTP server of `smtpUrl` (credentials in it), one connection per mail, from `from`. */
export function smtpSender(smtpUrl: string, from: string): MailSender {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    ...SMTP_TIMEOUTS,
    logger: false,
    // Mail is made of text and HTML only: nothing may make nodemailer read a file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        headers: { 'Content-Language': mail.language, 'Auto-Submitted': 'auto-generated' },
      });
    },
    close: () => transport.close(),
  };
}

/** What went wrong with a send, as the queue records it and the log says it. */
export interface SendFailure {
  /** The mail itself is refused for good (no such mailbox, message refused): retrying gets the same answer. */
  permanent: boolean;
  /** A short description with no secret: the error's code, the SMTP reply code and the message, credentials masked. */
  description: string;
  code: string | undefined;
  responseCode: number | undefined;
}

const MAX_DESCRIPTION = 300;

/**
 * Reads a send's error. Only a refusal of the recipient or the message is permanent: a refused login (535) is a
 * configuration to fix, after which the mail must still go, and a 4xx or a lost connection is worth another try.
 * `secrets` (the SMTP URL's user and password) are masked wherever the message might repeat them.
 */
export function failureOf(err: unknown, secrets: readonly string[]): SendFailure {
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as NodemailerError;
  let message = typeof e.message === 'string' ? e.message : 'send failed';
  for (const secret of secrets) if (secret.length > 0) message = message.split(secret).join('***');
  const code = typeof e.code === 'string' ? e.code : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const description = [code, responseCode, message.replace(/\s+/g, ' ')]
    .filter((p) => p !== undefined)
    .join(' ')
    .slice(0, MAX_DESCRIPTION);
  return { permanent: e.permanent === true && (code === 'EENVELOPE' || code === 'EMESSAGE'), description, code, responseCode };
}

/** The user and password of an SMTP URL, decoded as nodemailer uses them: what a recorded error must not hold. */
export function secretsOf(smtpUrl: string): string[] {
  const url = new URL(smtpUrl);
  return [url.username, url.password].flatMap((s) => (s ? [s, decodeURIComponent(s)] : []));
}
