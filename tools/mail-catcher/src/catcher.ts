import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import type { CaughtMail, CaughtMailStore } from './caught-mail';
import { handleHttp } from './http-view';

export interface MailCatcherOptions {
  /** SMTP port (0: any free one). */
  smtpPort?: number;
  /** HTTP port of the viewer (0: any free one). */
  httpPort?: number;
  host?: string;
  /** Recipients refused with `550` (a mailbox that does not exist), for tests of permanent failures. */
  refuseRecipient?: (address: string) => boolean;
}

/** A message of up to this size is taken; a larger one is refused (552), as a real server's limit would. */
const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

const addressesOf = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));

const lower = (a: SMTPServerAddress | false): string => (a ? a.address.toLowerCase() : '');

/**
 * A local SMTP server that keeps every mail it receives, in memory, and shows them over HTTP (`GET /messages`
 * as JSON, `/` as a page). Tests await a mail with {@link waitFor} / {@link waitForMailTo}, never with sleeps.
 * No TLS and no authentication: it listens on 127.0.0.1 for local runs and tests only.
 */
export class MailCatcher implements CaughtMailStore {
  readonly mails: CaughtMail[] = [];
  private waiters: { match: (m: CaughtMail) => boolean; resolve: (m: CaughtMail) => void }[] = [];
  private nextId = 1;

  private constructor(
    private readonly smtp: SMTPServer,
    private readonly http: Server,
    readonly host: string,
    readonly smtpPort: number,
    readonly httpPort: number,
  ) {}

  /** `smtp://host:port`: what a sender's SMTP_URL is set to. */
  get smtpUrl(): string {
    return `smtp://${this.host}:${this.smtpPort}`;
  }

  /** Where the caught mail can be read. */
  get httpUrl(): string {
    return `http://${this.host}:${this.httpPort}`;
  }

  static async start(options: MailCatcherOptions = {}): Promise<MailCatcher> {
    const host = options.host ?? '127.0.0.1';
    let catcher: MailCatcher | undefined;
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      size: MAX_MESSAGE_BYTES,
      logger: false,
      // Stopping waits this long for open connections (a sender's pooled one, say), not smtp-server's 30 s.
      closeTimeout: 500,
      onRcptTo(address, _session, callback) {
        if (options.refuseRecipient?.(address.address.toLowerCase())) {
          callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (parsed) => {
            if (stream.sizeExceeded) {
              callback(Object.assign(new Error('Message too large'), { responseCode: 552 }));
              return;
            }
            catcher?.keep(parsed, lower(session.envelope.mailFrom), session.envelope.rcptTo.map(lower));
            callback();
          },
          (err: unknown) => callback(Object.assign(new Error(`Unreadable message: ${String(err)}`), { responseCode: 554 })),
        );
      },
    });
    // A client that drops its connection mid-message is the sender's problem, not the catcher's.
    smtp.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      smtp.server.once('error', reject);
      smtp.listen(options.smtpPort ?? 0, host, () => resolve());
    });
    // Listening starts before the catcher exists; nothing can have connected by the time it does.
    const http = createServer((req, res) => (catcher ? handleHttp(catcher, req, res) : res.writeHead(503).end()));
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(options.httpPort ?? 0, host, () => resolve());
      });
    } catch (e) {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      throw e;
    }
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const httpPort = (http.address() as AddressInfo).port;
    catcher = new MailCatcher(smtp, http, host, smtpPort, httpPort);
    return catcher;
  }

  private keep(parsed: ParsedMail, envelopeFrom: string, envelopeTo: string[]): void {
    const language = parsed.headers.get('content-language');
    const mail: CaughtMail = {
      id: this.nextId++,
      receivedAt: new Date().toISOString(),
      envelopeFrom,
      envelopeTo,
      from: addressesOf(parsed.from)[0] ?? '',
      to: addressesOf(parsed.to),
      subject: parsed.subject ?? '',
      messageId: parsed.messageId ?? '',
      language: typeof language === 'string' ? language : '',
      text: parsed.text ?? '',
      html: parsed.html || '',
    };
    this.mails.push(mail);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(mail)) return true;
      w.resolve(mail);
      return false;
    });
  }

  /** Every mail whose envelope names this recipient, oldest first. */
  mailsTo(address: string): CaughtMail[] {
    const wanted = address.toLowerCase();
    return this.mails.filter((m) => m.envelopeTo.includes(wanted));
  }

  /** Resolves with the first mail (already caught or still to come) that matches. */
  waitFor(match: (m: CaughtMail) => boolean): Promise<CaughtMail> {
    const seen = this.mails.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Resolves with the n-th mail (1-based) to this recipient. */
  waitForMailTo(address: string, n = 1): Promise<CaughtMail> {
    const wanted = address.toLowerCase();
    return this.waitFor((m) => m.envelopeTo.includes(wanted) && this.mailsTo(wanted).indexOf(m) === n - 1);
  }

  /** Forgets every mail caught so far. */
  clear(): void {
    this.mails.length = 0;
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await Promise.all([
      new Promise<void>((resolve) => this.http.close(() => resolve())),
      new Promise<void>((resolve) => this.smtp.close(() => resolve())),
    ]);
  }
}
