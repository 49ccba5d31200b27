// The gateway's mail worker killed with SIGKILL (its crash points, armed by CRASH_AT as in
// docs/adr/0017-crash-points-behind-a-port.md) as an OOM kill or a lost node would: once right after the mail was
// claimed, once right after the SMTP server accepted it and before it was marked sent. A replacement gateway
// process without CRASH_AT takes the mail over when the dead one's lease runs out and sends it: no mail is lost.
// A kill after the server accepted it repeats the mail (at least once, docs/adr/0021-mail-queue.md), under the
// same Message-ID.
import { randomBytes } from 'node:crypto';
import { Db } from '@pl/db';
import { loadConfig as gatewayConfig, migrateGateway } from '@pl/gateway/testing';
import { enqueueMail, type MailCrashPoint } from '@pl/mail';
import { MailCatcher, type CaughtMail } from '@pl/mail-catcher';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, eventually, uniqueNamespace, withDeadline, type TestDatabase } from '@pl/testing';
import { startServiceProcess, stopServiceProcess, type ServiceProcess } from '../support/processes';

const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
const MAIL_ENV = { MAIL_LEASE_MS: '1000', MAIL_POLL_INTERVAL_MS: '50' };
/** A process start, a lease running out and one SMTP conversation, on a machine busy with other work. */
const STEP_MS = gatewayConfig(MAIL_ENV).MAIL_LEASE_MS + 20_000;
jest.setTimeout(4 * STEP_MS);

let database: TestDatabase;
let db: Db;
let catcher: MailCatcher;
let env: Record<string, string>;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase('mailcrash');
  await migrateGateway(database.url, log);
  db = new Db({ url: database.url, schema: 'gateway', log });
  catcher = await MailCatcher.start();
  const ns = uniqueNamespace('mailcrash');
  env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    NATS_URL: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
    BUS_NAMESPACE: ns,
    REDIS_KEY_PREFIX: `${ns}:`,
    GATEWAY_PORT: '0',
    SMTP_URL: catcher.smtpUrl,
    MAIL_FROM: 'Payment links <no-reply@pay.test>',
    ...MAIL_ENV,
  };
});

afterEach(async () => {
  for (const p of processes.splice(0)) await stopServiceProcess(p);
});

afterAll(async () => {
  await catcher?.close();
  await db?.close();
  await database?.drop();
});

const within = <T>(work: Promise<T>, what: string, p?: ServiceProcess): Promise<T> =>
  withDeadline(work, STEP_MS, what, p && (() => `gateway said:\n${p.lines.slice(-20).join('\n')}`));

const gateway = async (extra: Record<string, string> = {}): Promise<ServiceProcess> => {
  const p = await startServiceProcess('gateway', { ...env, ...extra });
  processes.push(p);
  return p;
};

const rowOf = async (to: string) =>
  (await db.query<{ sent_at: Date | null; attempts: number }>('SELECT sent_at, attempts FROM mail_queue WHERE recipient = $1', [to]))[0];

/** Enqueues a reset mail (its link holds a token) and starts a gateway armed to die at `point`; resolves once it died. */
async function killedAt(point: MailCrashPoint): Promise<{ to: string; link: string }> {
  const to = `crash-${randomBytes(5).toString('hex')}@example.com`;
  const link = `http://127.0.0.1:8080/reset-password?token=${randomBytes(16).toString('base64url')}`;
  await db.transaction((tx) => enqueueMail(tx, { to, template: 'password_reset', language: 'en', params: { link } }));
  const doomed = await gateway({ CRASH_AT: point });
  const code = await within(doomed.exited, `the gateway dies at ${point}`, doomed);
  expect({ code, signal: doomed.child.signalCode }).toEqual({ code: null, signal: 'SIGKILL' });
  expect(await rowOf(to)).toMatchObject({ sent_at: null, attempts: 1 });
  return { to, link };
}

/** The replacement has recorded the mail as sent: a row in another process's hands, polled (nothing to await). */
const sentByReplacement = (to: string): Promise<number> =>
  eventually(async () => Boolean((await rowOf(to))?.sent_at), 'the replacement marks the mail sent', STEP_MS);

test('killed after claiming a mail and before sending it: the replacement sends it, once', async () => {
  const { to, link } = await killedAt('mail.claimed');
  expect(catcher.mailsTo(to)).toEqual([]);

  const replacement = await gateway();
  const mail = await within(catcher.waitForMailTo(to), 'the replacement sends the mail', replacement);
  expect(mail.text).toContain(link);
  await sentByReplacement(to);
  expect(catcher.mailsTo(to)).toHaveLength(1);
  expect((await rowOf(to))?.attempts).toBe(2);
});

test('killed after the SMTP server took the mail and before it was marked sent: the replacement sends it again, same Message-ID', async () => {
  const { to, link } = await killedAt('mail.sent');
  const first: CaughtMail = await within(catcher.waitForMailTo(to, 1), 'the first copy arrived before the kill');

  const replacement = await gateway();
  const repeat = await within(catcher.waitForMailTo(to, 2), 'the replacement sends the mail again', replacement);
  expect(repeat.messageId).toBe(first.messageId);
  expect(repeat.subject).toBe(first.subject);
  await sentByReplacement(to);
  expect(catcher.mailsTo(to)).toHaveLength(2);
  // No log line of either process holds the link's token or the recipient.
  expect(processes.flatMap((p) => p.lines).filter((l) => l.includes(to) || l.includes(link) || l.includes('token='))).toEqual([]);
});
