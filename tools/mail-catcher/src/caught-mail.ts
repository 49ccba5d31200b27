/** One mail the catcher received, as its envelope and its parsed message say. */
export interface CaughtMail {
  /** 1, 2, 3 … in the order the mails arrived. */
  id: number;
  receivedAt: string;
  /** The envelope's sender and recipients (MAIL FROM, RCPT TO), lower-cased. */
  envelopeFrom: string;
  envelopeTo: string[];
  /** The message's own headers. */
  from: string;
  to: string[];
  subject: string;
  messageId: string;
  /** `Content-Language`, when the message says it. */
  language: string;
  text: string;
  html: string;
}

/** What the HTTP view reads and clears. */
export interface CaughtMailStore {
  readonly mails: CaughtMail[];
  mailsTo(address: string): CaughtMail[];
  clear(): void;
}
