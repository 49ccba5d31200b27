import { problemWith } from './render';
import type { MailRequest } from './request';

/**
 * Anything that runs a query: the pg PoolClient that `Db.transaction` hands its callback (or the Db itself, for a
 * mail caused by no other write).
 */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** One address, as an SMTP envelope takes it: no name, no spaces or line breaks, one @ with something either side. */
const isAddress = (to: string): boolean => typeof to === 'string' && to.length <= 254 && /^[^\s@<>,;"]+@[^\s@<>,;"]+$/.test(to);

/**
 * Writes the mail to the durable queue (the gateway schema's `mail_queue`, found through the connection's
 * search_path) in the caller's transaction: it is sent only if that transaction commits, and it survives a crash
 * once it has. A mail its template cannot be written from (a param missing, a link that is not an http(s) URL) is
 * a programming error: it throws, and so rolls the caller's transaction back, rather than queue a mail never sent.
 */
export async function enqueueMail(tx: Queryable, mail: MailRequest): Promise<void> {
  const problem = isAddress(mail.to) ? problemWith(mail) : 'the recipient is not an email address';
  if (problem) throw new Error(`mail not enqueued: ${problem}`);
  await tx.query('INSERT INTO mail_queue (recipient, template, language, params) VALUES ($1, $2, $3, $4)', [
    mail.to,
    mail.template,
    mail.language,
    JSON.stringify(mail.params),
  ]);
}
