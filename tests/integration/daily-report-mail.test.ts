// The daily report mail (docs/payouts.md "Reports", ADR 49) across the real gateway, links and shops, Postgres, NATS
// and the SMTP catcher: a member whose role reads money opts in, and each morning from 07:00 Moscow gets one mail
// per account naming yesterday's figures of each shop, as the day's CSV totals them, and linking that CSV. Two
// replicas racing queue it once; a run later that day catches up a member who opted in after the first.
import { BusClient, connectNats, IdentityTokens } from '@pl/bus';
import { Db } from '@pl/db';
import { enqueueMail } from '@pl/mail';
import {
  DailyReportMailJob,
  DailyReportMailRepository,
  LinksClient,
  loadConfig as gatewayConfig,
  ROLE_ACTIONS,
  ShopsClient,
} from '@pl/gateway/testing';
import { createLogger } from '@pl/telemetry';
import { eventually } from '@pl/testing';
import { expectError } from '../support/http';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/** The day the shops' money is placed on, and the mornings after it (Moscow is UTC+3 all year). */
const DAY = '2026-11-20';
const AT_0659 = new Date('2026-11-21T03:59:59Z');
const AT_0700 = new Date('2026-11-21T04:00:00Z');
const AT_2330 = new Date('2026-11-21T20:30:00Z');

const log = createLogger('test', 'silent');
let sys: TestSystem;
let owner: TestMerchant;
let shopA: TestShop;
let shopB: TestShop;
let nc: Awaited<ReturnType<typeof connectNats>>;
const pools: Db[] = [];
let publicBaseUrl: string;

interface Member {
  email: string;
  auth: Record<string, string>;
}
let ownerMember: Member;
const members: Record<'finance' | 'support' | 'viewer' | 'developer', Member> = {} as never;

/** A user of another account made a `role` member of the owner's account, signed in and switched to it. */
async function join(role: string, language: 'ru' | 'en'): Promise<Member> {
  const m = await sys.merchant();
  const [user] = await sys.sql<{ id: string }>('UPDATE gateway.users SET language = $2 WHERE email = $1 RETURNING id', [m.email, language]);
  await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [user!.id, owner.id, role]);
  const auth = { Authorization: `Bearer ${await sys.login(m, { passwordOnly: true })}` };
  expect((await sys.http.post('/api/v1/auth/switch', { merchant_id: owner.id }, { headers: auth })).status).toBe(200);
  return { email: m.email, auth };
}

const patchPreferences = (body: unknown, headers: Record<string, string> = {}) => sys.http.call('PATCH', '/api/v1/me/preferences', { headers, body });
const optIn = (m: Member, on: boolean) => patchPreferences({ daily_report_mail: on }, m.auth);

/** A replica's job with its own connection pool and its own clock. */
function replica(now: Date, everyMs = 0): DailyReportMailJob {
  const config = gatewayConfig(sys.env);
  const bus = new BusClient(nc, config.BUS_NAMESPACE, new IdentityTokens(config.IDENTITY_TOKEN_SECRET), config.NATS_REQUEST_TIMEOUT_MS);
  const db = new Db({ url: sys.database.url, schema: 'gateway', log });
  pools.push(db);
  return new DailyReportMailJob(
    {
      repository: new DailyReportMailRepository(db, enqueueMail, ROLE_ACTIONS.read_money),
      links: new LinksClient(bus),
      shops: new ShopsClient(bus),
      publicBaseUrl,
      log,
    },
    everyMs,
    () => now,
  );
}

const paid = async (shop: TestShop, amount: string): Promise<void> => {
  const res = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount, order_id: `drm-${amount}-${shop.id}` },
    { headers: owner.keys },
  );
  expect(res.status).toBe(201);
  expect((await sys.providerCallback(sandboxPaymentId(res.body.id as string), 'paid')).status).toBe(200);
};

/** Moves the shop's postings to noon Moscow of DAY (the ledger is append-only by trigger: lifted for this statement). */
async function placeOnDay(shopId: number): Promise<void> {
  if (!Number.isSafeInteger(shopId)) throw new Error('shop id');
  await sys.sql(`BEGIN;
    ALTER TABLE links.ledger_transactions DISABLE TRIGGER ledger_transactions_append_only;
    UPDATE links.ledger_transactions SET created_at = '${DAY}T09:00:00Z' WHERE shop_id = ${shopId};
    ALTER TABLE links.ledger_transactions ENABLE TRIGGER ledger_transactions_append_only;
    COMMIT;`);
}

/** The CSV's `total` line, as an accountant downloads it. */
async function csvTotal(path: string, headers: Record<string, string>): Promise<{ amount: string; fee: string; net: string }> {
  const res = await fetch(`${sys.baseUrl}${path}`, { headers });
  expect(res.status).toBe(200);
  const lines = (await res.text()).trim().split('\r\n');
  const total = lines[lines.length - 1]!.split(',');
  expect(total[2]).toBe('total');
  return { amount: total[3]!, fee: total[4]!, net: total[5]! };
}

const rub = (money: string, locale: string): string =>
  new Intl.NumberFormat(locale, { style: 'currency', currency: 'RUB' }).format(money as unknown as number).replace(/[\u00a0\u202f]/g, ' ');
const spaced = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ');

const queuedTo = async (email: string): Promise<number> =>
  Number(
    (await sys.sql<{ n: string }>(`SELECT count(*) AS n FROM gateway.mail_queue WHERE recipient = $1 AND template = 'daily_report'`, [email]))[0]?.n,
  );

beforeAll(async () => {
  // The gateway's own runs are off: the test drives the job with its clock.
  sys = await startSystem({ env: { DAILY_REPORT_MAIL_EVERY_MS: '0' } });
  publicBaseUrl = gatewayConfig(sys.env).PUBLIC_BASE_URL;
  nc = await connectNats(sys.env.NATS_URL!, 'daily-report-mail-test', log);
  owner = await sys.merchant();
  shopA = await sys.shop(owner.id);
  shopB = await sys.shop(owner.id);
  await sys.sql(`UPDATE shops.shops SET name = 'Ромашка <main>' WHERE id = $1`, [shopA.id]);
  await paid(shopA, '1000.00');
  await paid(shopA, '250.50');
  await paid(shopB, '99.99');
  await placeOnDay(shopA.id);
  await placeOnDay(shopB.id);
  const [ownerUser] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [owner.email]);
  expect(ownerUser).toBeDefined();
  ownerMember = { email: owner.email, auth: { Authorization: `Bearer ${await sys.login(owner, { passwordOnly: true })}` } };
  members.finance = await join('finance', 'en');
  members.support = await join('support', 'en');
  members.viewer = await join('viewer', 'ru');
  members.developer = await join('developer', 'en');
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await nc?.drain();
  await sys?.stop();
});

describe('the member’s opt-in', () => {
  test('is off until the member turns it on, and reads back as set', async () => {
    const before = await sys.http.get('/api/v1/me/preferences', { headers: members.finance.auth });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ daily_report_mail: false });
    const on = await optIn(members.finance, true);
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ daily_report_mail: true });
    expect((await sys.http.get('/api/v1/me/preferences', { headers: members.finance.auth })).body).toEqual({ daily_report_mail: true });
  });

  test('is refused to a role that does not read reports, and to a body that is not the one boolean', async () => {
    expectError(await optIn(members.developer, true), 403, 'common.err.forbidden');
    expectError(await sys.http.get('/api/v1/me/preferences', { headers: members.developer.auth }), 403, 'common.err.forbidden');
    expectError(await patchPreferences({}, members.finance.auth), 400, 'common.err.validation_failed');
    expectError(await patchPreferences({ daily_report_mail: 'yes' }, members.finance.auth), 400, 'common.err.validation_failed');
    expectError(await patchPreferences({ daily_report_mail: true }), 401, 'common.err.unauthorized');
  });
});

describe('the morning’s mail', () => {
  beforeAll(async () => {
    expect((await optIn(ownerMember, true)).status).toBe(200);
    // Turned on, then off again: no mail.
    expect((await optIn(members.support, true)).status).toBe(200);
    expect((await optIn(members.support, false)).status).toBe(200);
    // A role without report rights whose flag is set anyway (it had finance once, say): still no mail.
    await sys.sql(
      `UPDATE gateway.memberships SET daily_report_mail = true
        WHERE merchant_id = $1 AND user_id = (SELECT id FROM gateway.users WHERE email = $2)`,
      [owner.id, members.developer.email],
    );
  });

  test('is not due before 07:00 Moscow', async () => {
    expect(await replica(AT_0659).runOnce()).toEqual({ day: null, queued: 0 });
    expect(await queuedTo(members.finance.email)).toBe(0);
  });

  test('three replicas racing at 07:00 queue one mail per opted-in member, and a later run none', async () => {
    const runs = await Promise.all([replica(AT_0700).runOnce(), replica(AT_0700).runOnce(), replica(AT_0700).runOnce()]);
    expect(runs.map((r) => r.day)).toEqual([DAY, DAY, DAY]);
    // The owner and the finance member, once each, whichever replica won each race.
    expect(runs.reduce((sum, r) => sum + r.queued, 0)).toBe(2);
    expect(await replica(AT_2330).runOnce()).toEqual({ day: DAY, queued: 0 });
    for (const m of [ownerMember, members.finance]) expect(await queuedTo(m.email)).toBe(1);
    for (const m of [members.support, members.viewer, members.developer]) expect(await queuedTo(m.email)).toBe(0);
    const rows = await sys.sql<{ email: string }>(
      `SELECT u.email FROM gateway.daily_report_mails d JOIN gateway.users u ON u.id = d.user_id
        WHERE d.merchant_id = $1 AND d.day = $2 ORDER BY u.email`,
      [owner.id, DAY],
    );
    expect(rows.map((r) => r.email).sort()).toEqual([ownerMember.email, members.finance.email].sort());
  });

  test('names each shop’s figures as its CSV totals them, and links that CSV, in the member’s language', async () => {
    const mail = await sys.mail.waitForMailTo(members.finance.email);
    expect(mail.subject).toBe(`Daily report for 20 November 2026: ${owner.email}`);
    const text = spaced(mail.text);
    for (const [shop, payments, gross] of [
      [shopA, 2, '1250.50'],
      [shopB, 1, '99.99'],
    ] as const) {
      const csvPath = `/api/v1/reports/daily?shop_id=${shop.id}&date=${DAY}`;
      // The link works for the member: the same route, their session.
      const total = await csvTotal(csvPath, members.finance.auth);
      expect(total.amount).toBe(gross);
      const name = shop === shopA ? 'Ромашка <main>' : 'Test shop';
      expect(text).toContain(
        `${name} (#${shop.id}): ${payments} payments for ${rub(gross, 'en-GB')}; fees ${rub(total.fee, 'en-GB')}; net ${rub(total.net, 'en-GB')}`,
      );
      expect(text).toContain(`Download the report (CSV): ${publicBaseUrl.replace(/\/$/, '')}${csvPath}`);
      expect(mail.html).toContain(`href="${publicBaseUrl.replace(/\/$/, '')}${csvPath.replace('&', '&amp;')}"`);
    }
    expect(mail.html).toContain('Ромашка &lt;main&gt;');
    expect(text).toContain(`Open the dashboard:\n${publicBaseUrl.replace(/\/$/, '')}/dashboard/home`);

    const ru = await sys.mail.waitForMailTo(owner.email);
    expect(ru.subject).toBe(`Ежедневный отчёт за 20 ноября 2026 г.: ${owner.email}`);
    expect(spaced(ru.text)).toContain(`Test shop (№${shopB.id}): платежей 1 на ${rub('99.99', 'ru-RU')}`);
  });

  test('a member who opts in after the first run gets the day’s mail from a run later that day, once', async () => {
    expect((await optIn(members.viewer, true)).status).toBe(200);
    const runs = await Promise.all([replica(AT_2330).runOnce(), replica(AT_2330).runOnce()]);
    expect(runs.reduce((sum, r) => sum + r.queued, 0)).toBe(1);
    expect(await queuedTo(members.viewer.email)).toBe(1);
    await sys.mail.waitForMailTo(members.viewer.email);
  });

  test('a replica started later that day runs at once and catches up (the timer as the gateway wires it)', async () => {
    expect((await optIn(members.support, true)).status).toBe(200);
    const job = replica(AT_2330, 60_000);
    job.start();
    try {
      await eventually(async () => (await queuedTo(members.support.email)) === 1, 'the support member’s mail queued by the started job', 10_000);
    } finally {
      await job.stop();
    }
  });

  test('every mail sent, each member has exactly the one', async () => {
    await eventually(
      async () => (await sys.sql(`SELECT 1 FROM gateway.mail_queue WHERE template = 'daily_report' AND sent_at IS NULL`)).length === 0,
      'every daily report mail sent',
      10_000,
    );
    const count = (email: string) => sys.mail.mailsTo(email).filter((m) => /Daily report|Ежедневный отчёт/.test(m.subject)).length;
    expect([ownerMember, members.finance, members.viewer, members.support].map((m) => count(m.email))).toEqual([1, 1, 1, 1]);
    expect(count(members.developer.email)).toBe(0);
  });
});
