// The mail queue over real Postgres and real SMTP: mail written in a committed transaction reaches the catcher
// in the reader's language; mail of a rolled-back one never exists; an SMTP server that is down delays mail
// and loses none; two workers send each mail once; a refused recipient is given up at once. The worker runs
// in-process here with short delays; tests/faults/mail-worker-crash.test.ts kills one running in the gateway.
import { randomBytes } from 'node:crypto';
import { Db } from '@pl/db';
import { migrateGateway } from '@pl/gateway/testing';
import { enqueueMail, MailQueue, MailWorker, smtpSender, type MailRequest, type MailSettings } from '@pl/mail';
import { MailCatcher } from '@pl/mail-catcher';
import { createLogger, createMetricsRegistry } from '@pl/telemetry';
import { createTestDatabase, eventually, FaultProxy, type TestDatabase } from '@pl/testing';

const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
const FROM = 'Payment links <no-reply@pay.test>';
/** Mail arrives within this; each wait is for an event (a mail caught), this only bounds a broken run. */
const ARRIVAL_MS = 15_000;

let database: TestDatabase;
let db: Db;
let catcher: MailCatcher;
const workers: MailWorker[] = [];

beforeAll(async () => {
  database = await createTestDatabase('mail');
  await migrateGateway(database.url, log);
  db = new Db({ url: database.url, schema: 'gateway', log });
  catcher = await MailCatcher.start();
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await catcher?.close();
  await db?.close();
  await database?.drop();
});

const settings = (smtpUrl: string, over: Partial<MailSettings> = {}): MailSettings => ({
  SMTP_URL: smtpUrl,
  MAIL_FROM: FROM,
  MAIL_POLL_INTERVAL_MS: 20,
  MAIL_LEASE_MS: 10_000,
  MAIL_RETRY_FIRST_DELAY_MS: 20,
  MAIL_RETRY_MAX_DELAY_MS: 200,
  MAIL_MAX_ATTEMPTS: 1000,
  ...over,
});

function startWorker(smtpUrl = catcher.smtpUrl, over: Partial<MailSettings> = {}, metrics = createMetricsRegistry('gateway')): MailWorker {
  const s = settings(smtpUrl, over);
  const worker = new MailWorker({ queue: new MailQueue(db), sender: smtpSender(s.SMTP_URL, s.MAIL_FROM), settings: s, log, metrics });
  worker.start();
  workers.push(worker);
  return worker;
}

const address = (): string => `u-${randomBytes(5).toString('hex')}@example.com`;
const link = (path: string): string => `http://127.0.0.1:8080${path}?token=${randomBytes(16).toString('base64url')}`;

const enqueue = (mail: MailRequest): Promise<void> => db.transaction((tx) => enqueueMail(tx, mail));

const rowOf = async (to: string) =>
  (
    await db.query<{ sent_at: Date | null; failed_at: Date | null; attempts: number; last_error: string | null; params: Record<string, string> }>(
      'SELECT sent_at, failed_at, attempts, last_error, params FROM mail_queue WHERE recipient = $1',
      [to],
    )
  )[0];

/** The queue row's state is in another process's hands (the worker's): polled, the one thing that has no event. */
const rowSettles = (to: string, done: (row: NonNullable<Awaited<ReturnType<typeof rowOf>>>) => boolean, what: string): Promise<number> =>
  eventually(
    async () => {
      const row = await rowOf(to);
      return row !== undefined && done(row);
    },
    what,
    ARRIVAL_MS,
  );

test('a mail enqueued in a committed transaction arrives over SMTP in the reader’s language, with its link, and the queue forgets the link', async () => {
  startWorker();
  const to = address();
  const confirm = link('/confirm-email');
  await enqueue({ to, template: 'signup_confirm', language: 'ru', params: { link: confirm } });

  const mail = await catcher.waitForMailTo(to);
  expect(mail.subject).toBe('Подтвердите email для «Платёжных ссылок»');
  expect(mail.language).toBe('ru');
  expect(mail.from).toBe('no-reply@pay.test');
  expect(mail.envelopeTo).toEqual([to]);
  expect(mail.text).toContain(confirm);
  expect(mail.html).toContain(`href="${confirm}"`);
  expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@pay\.test>$/);

  await rowSettles(to, (row) => row.sent_at !== null, 'the mail is marked sent');
  const row = await rowOf(to);
  expect(row).toMatchObject({ attempts: 1, failed_at: null, last_error: null, params: {} });
});

test('an English invitation with a hostile account name: the HTML escapes it, the text says it as written', async () => {
  startWorker();
  const to = address();
  const accept = link('/invitations/accept');
  await enqueue({
    to,
    template: 'invitation',
    language: 'en',
    params: { link: accept, account_name: '<script>alert(1)</script>', role: 'admin', inviter_email: 'owner@example.com' },
  });
  const mail = await catcher.waitForMailTo(to);
  expect(mail.language).toBe('en');
  expect(mail.subject).toBe('You are invited to <script>alert(1)</script> on Payment links');
  expect(mail.html).not.toContain('<script>');
  expect(mail.html).toContain('“&lt;script&gt;alert(1)&lt;/script&gt;”');
  expect(mail.text).toContain('owner@example.com invites you to join the account “<script>alert(1)</script>” on Payment links as administrator.');
  expect(mail.text).toContain(accept);
});

test('a mail enqueued in a transaction that rolls back is never written, so never sent', async () => {
  startWorker();
  const lost = address();
  const later = address();
  await expect(
    db.transaction(async (tx) => {
      await enqueueMail(tx, { to: lost, template: 'password_reset', language: 'en', params: { link: link('/reset') } });
      throw new Error('the change that caused the mail failed');
    }),
  ).rejects.toThrow('the change that caused the mail failed');
  // A mail enqueued after it arrives: the worker has been through the queue since.
  await enqueue({ to: later, template: 'password_reset', language: 'en', params: { link: link('/reset') } });
  await catcher.waitForMailTo(later);
  expect(await rowOf(lost)).toBeUndefined();
  expect(catcher.mailsTo(lost)).toEqual([]);
});

test('enqueueMail refuses a mail its template cannot be written from, rolling the caller’s change back', async () => {
  const to = address();
  await expect(enqueue({ to, template: 'password_reset', language: 'en', params: { link: 'javascript:alert(1)' } })).rejects.toThrow(
    /not an absolute http\(s\) URL/,
  );
  await expect(enqueue({ to: 'not an address', template: 'password_changed', language: 'en', params: {} })).rejects.toThrow(/recipient/);
  expect(await rowOf(to)).toBeUndefined();
});

test('the SMTP server down for a while: attempts fail and back off, and once it is back every mail is sent, once', async () => {
  const proxy = await new FaultProxy('127.0.0.1', catcher.smtpPort).start();
  try {
    proxy.down();
    startWorker(proxy.rewrite(catcher.smtpUrl));
    const recipients = [address(), address(), address()];
    for (const to of recipients) await enqueue({ to, template: 'password_changed', language: 'en', params: {} });
    for (const to of recipients) await rowSettles(to, (row) => row.attempts >= 2 && row.last_error !== null, 'a failed attempt is retried');
    const failed = await rowOf(recipients[0]!);
    expect(failed?.sent_at).toBeNull();
    expect(failed?.last_error).toMatch(/ECONNECTION|ESOCKET|ECONNRESET|closed/i);
    expect(catcher.mailsTo(recipients[0]!)).toEqual([]);

    proxy.up();
    const mails = await Promise.all(recipients.map((to) => catcher.waitForMailTo(to)));
    expect(mails.map((m) => m.subject)).toEqual(recipients.map(() => 'Your Payment links password was changed'));
    for (const to of recipients) await rowSettles(to, (row) => row.sent_at !== null, 'the mail is marked sent');
    for (const to of recipients) expect(catcher.mailsTo(to)).toHaveLength(1);
  } finally {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await proxy.close();
  }
});

test('two workers on one queue: every mail is sent, each once', async () => {
  startWorker();
  startWorker();
  const recipients = Array.from({ length: 24 }, address);
  await Promise.all(recipients.map((to) => enqueue({ to, template: 'api_key_created', language: 'en', params: { label: 'CI', mode: 'live' } })));
  await Promise.all(recipients.map((to) => catcher.waitForMailTo(to)));
  for (const to of recipients) await rowSettles(to, (row) => row.sent_at !== null, 'the mail is marked sent');
  expect(recipients.map((to) => catcher.mailsTo(to).length)).toEqual(recipients.map(() => 1));
  const attempts = await db.query<{ attempts: number }>('SELECT attempts FROM mail_queue WHERE recipient = ANY($1)', [recipients]);
  expect(attempts.map((r) => r.attempts)).toEqual(recipients.map(() => 1));
});

test('a recipient the server refuses for good is given up at once, its params forgotten, and counted', async () => {
  const refusing = await MailCatcher.start({ refuseRecipient: (a) => a.startsWith('gone-') });
  try {
    const metrics = createMetricsRegistry('gateway');
    startWorker(refusing.smtpUrl, {}, metrics);
    const gone = `gone-${address()}`;
    const kept = address();
    await enqueue({ to: gone, template: 'password_reset', language: 'en', params: { link: link('/reset') } });
    await enqueue({ to: kept, template: 'password_reset', language: 'en', params: { link: link('/reset') } });
    await refusing.waitForMailTo(kept);
    await rowSettles(gone, (row) => row.failed_at !== null, 'the refused mail is given up');
    const row = await rowOf(gone);
    expect(row).toMatchObject({ attempts: 1, sent_at: null, params: {} });
    expect(row?.last_error).toMatch(/^EENVELOPE 550 /);
    const text = await metrics.metrics();
    expect(text).toMatch(/^mail_given_up_total\{template="password_reset",reason="refused",app="gateway"\} 1$/m);
    expect(text).toMatch(/^mail_sent_total\{template="password_reset",app="gateway"\} 1$/m);
  } finally {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await refusing.close();
  }
});

test('a mail that fails its last attempt is given up after MAIL_MAX_ATTEMPTS', async () => {
  const proxy = await new FaultProxy('127.0.0.1', catcher.smtpPort).start();
  try {
    proxy.down();
    startWorker(proxy.rewrite(catcher.smtpUrl), { MAIL_MAX_ATTEMPTS: 3 });
    const to = address();
    await enqueue({ to, template: 'second_factor_removed', language: 'ru', params: { factor: 'totp' } });
    await rowSettles(to, (row) => row.failed_at !== null, 'the mail is given up');
    expect(await rowOf(to)).toMatchObject({ attempts: 3, sent_at: null, params: {} });
  } finally {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await proxy.close();
  }
});

test('the queue gauges: what waits and for how long, read at scrape time', async () => {
  const metrics = createMetricsRegistry('gateway');
  // No worker runs: the mail waits.
  new MailWorker({ queue: new MailQueue(db), sender: smtpSender(catcher.smtpUrl, FROM), settings: settings(catcher.smtpUrl), log, metrics });
  const to = address();
  await enqueue({ to, template: 'password_changed', language: 'en', params: {} });
  await db.query(`UPDATE mail_queue SET created_at = now() - interval '10 minutes' WHERE recipient = $1`, [to]);
  const text = await metrics.metrics();
  expect(Number(/^mail_queue_depth\{app="gateway"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
  expect(Number(/^mail_queue_oldest_age_seconds\{app="gateway"\} ([\d.]+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(600);
  // Sent by the next worker, the gauges fall back.
  startWorker();
  await catcher.waitForMailTo(to);
  await rowSettles(to, (row) => row.sent_at !== null, 'the mail is marked sent');
  expect(await metrics.metrics()).toMatch(/^mail_queue_oldest_age_seconds\{app="gateway"\} 0$/m);
});

test('a stopped worker claims nothing more', async () => {
  const worker = startWorker();
  await worker.stop();
  const to = address();
  await enqueue({ to, template: 'password_changed', language: 'en', params: {} });
  // Another worker's pass is what shows the mail was there to claim: it sends it, with one attempt, not two.
  startWorker();
  await catcher.waitForMailTo(to);
  await rowSettles(to, (row) => row.sent_at !== null, 'the mail is marked sent');
  expect((await rowOf(to))?.attempts).toBe(1);
});
