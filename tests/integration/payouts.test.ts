import { randomUUID } from 'node:crypto';
import { expectError, type ApiResponse } from '../support/http';
import { expectLedgerClean } from '../support/money';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * docs/payouts.md against the real services: destinations (validation, masking, the mail to members with payout
 * rights), payouts' rules and codes, approval by another member, reject and cancel with their money back, the test
 * simulator, race safety (50 at once never pass available, one Idempotency-Key one payout, two approvers approve once),
 * and a clean ledger after all of it. The hold and the cool-down are 0 here (tests/integration/payouts-hold.test.ts
 * runs them at their defaults); the limits are small so a test can reach them.
 */

jest.setTimeout(180_000);

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({
    env: {
      PAYOUT_HOLD_HOURS: '0',
      PAYOUT_DESTINATION_COOLDOWN_HOURS: '0',
      PAYOUT_MAX: '5000.00',
      PAYOUT_DAILY_MAX: '20000.00',
      PAYOUT_APPROVAL_THRESHOLD: '1000.00',
      PAYOUT_FEE: '1.50',
      RATE_LIMIT_SESSION_PER_MINUTE: '1000000',
      RATE_LIMIT_API_KEY_PER_MINUTE: '1000000',
      // Every test signs members in from the one test address.
      RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000',
      // 50 payouts of one account queue on its payout lock, one transaction after another: on this shared, loaded
      // test machine the last waits longer than the systems' usual 2 s bus deadline.
      NATS_REQUEST_TIMEOUT_MS: '15000',
    },
  });
}, 90_000);

const BANK = { recipient_name: 'ООО «Ромашка»', inn: '7707083893', kpp: '773601001', bik: '044525225', account: '40702810238000001234' };
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

interface Account {
  merchant: TestMerchant;
  shop: TestShop;
  /** The owner's stepped-up session. */
  auth: Record<string, string>;
}

async function account(): Promise<Account> {
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  return { merchant, shop, auth: { Authorization: `Bearer ${await sys.login(merchant)}` } };
}

/** Another user of the account with `role`, stepped up and switched to it. */
async function member(acc: Account, role: string): Promise<{ userId: string; auth: Record<string, string> }> {
  const m = await sys.merchant();
  const [user] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [m.email]);
  await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [user!.id, acc.merchant.id, role]);
  const auth = { Authorization: `Bearer ${await sys.login(m)}` };
  expect((await sys.http.post('/api/v1/auth/switch', { merchant_id: acc.merchant.id }, { headers: auth })).status).toBe(200);
  return { userId: user!.id, auth };
}

/** A paid link of `amount` (the client pays the fee, so the shop is credited all of it). */
async function credit(acc: Account, amount: string, mode: 'live' | 'test' = 'live'): Promise<void> {
  const keys = mode === 'live' ? acc.merchant.keys : acc.merchant.testKeys;
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: acc.shop.id, amount }, { headers: keys });
  expect(created.status).toBe(201);
  expect((await sys.providerCallback(sandboxPaymentId(created.body.id as string), 'paid')).status).toBe(200);
}

async function destination(
  acc: Account,
  body: object = { type: 'bank_account', bank_account: BANK },
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await sys.http.post('/api/v1/payout-destinations', body, { headers: { ...acc.auth, ...headers } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const payout = (acc: Account, body: object, headers: Record<string, string> = {}): Promise<ApiResponse> =>
  sys.http.post('/api/v1/payouts', { shop_id: acc.shop.id, ...body }, { headers: { ...acc.auth, ...headers } });

async function balance(acc: Account, mode: 'live' | 'test' = 'live'): Promise<Record<string, unknown>> {
  const res = await sys.http.get(`/merchant/v1/balance?shop_id=${acc.shop.id}`, {
    headers: mode === 'live' ? acc.merchant.keys : acc.merchant.testKeys,
  });
  expect(res.status).toBe(200);
  return res.body;
}

const tally = (answers: ApiResponse[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status < 300 ? String(a.status) : `${a.status} ${a.body?.error?.code as string}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};

// Every test's money, checked at the end: the ledger balanced, no shop account below zero.
afterAll(async () => {
  if (!sys) return;
  await expectLedgerClean(sys);
  await sys.stop();
}, 60_000);

describe('the balance', () => {
  it('splits into available and pending that sum to the balance, on both route families', async () => {
    const acc = await account();
    await credit(acc, '700.00');
    expect(await balance(acc)).toMatchObject({ balance: '700.00', available: '700.00', pending: '0.00' });
    const session = await sys.http.get(`/api/v1/shops/${acc.shop.id}/balance`, { headers: acc.auth });
    expect(session.body).toMatchObject({ balance: '700.00', available: '700.00', pending: '0.00' });
  });
});

describe('payout destinations', () => {
  it('refuses bad bank details and crypto addresses with 400 naming the field', async () => {
    const acc = await account();
    const post = (body: object) => sys.http.post('/api/v1/payout-destinations', body, { headers: acc.auth });
    const badInn = await post({ type: 'bank_account', bank_account: { ...BANK, inn: '77070838' } });
    expectError(badInn, 400, 'common.err.validation_failed');
    expect(badInn.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'bank_account.inn' })]));
    const noKpp = await post({ type: 'bank_account', bank_account: { ...BANK, kpp: null } });
    expect(noKpp.body.error.details).toEqual([expect.objectContaining({ field: 'bank_account.kpp' })]);
    const badAccount = await post({ type: 'bank_account', bank_account: { ...BANK, account: '4070281093800000123X' } });
    expect(badAccount.body.error.details).toEqual([expect.objectContaining({ field: 'bank_account.account' })]);
    const badAddress = await post({ type: 'crypto_address', crypto_address: { network: 'USDT-TRC20', address: `${TRON.slice(0, -1)}u` } });
    expectError(badAddress, 400, 'common.err.validation_failed');
    expect(badAddress.body.error.details).toEqual([expect.objectContaining({ field: 'crypto_address.address' })]);
    const badNetwork = await post({ type: 'crypto_address', crypto_address: { network: 'DOGE', address: TRON } });
    expectError(badNetwork, 400, 'common.err.validation_failed');
  });

  it('makes one masked, mails every member with payout rights, reads on both families and removes it', async () => {
    const acc = await account();
    const finance = await sys.merchant();
    const [financeUser] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [finance.email]);
    await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [financeUser!.id, acc.merchant.id, 'finance']);

    const bank = await sys.http.post('/api/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: acc.auth });
    expect(bank.status).toBe(201);
    expect(bank.body).toMatchObject({ type: 'bank_account', status: 'active', masked: '•••• 1234', livemode: true });
    expect(JSON.stringify(bank.body)).not.toContain(BANK.account);
    const crypto = await sys.http.post(
      '/api/v1/payout-destinations',
      { type: 'crypto_address', crypto_address: { network: 'USDT-TRC20', address: TRON } },
      { headers: acc.auth },
    );
    expect(crypto.body).toMatchObject({ type: 'crypto_address', masked: 'TR7NHq…Lj6t', network: 'USDT-TRC20' });

    for (const to of [acc.merchant.email, finance.email]) {
      const mail = await sys.mail.waitFor((m) => m.envelopeTo.includes(to.toLowerCase()) && m.text.includes('•••• 1234'));
      expect(mail.text).toMatch(/выплат|payout/);
    }

    const listed = await sys.http.get('/merchant/v1/payout-destinations', { headers: acc.merchant.keys });
    expect(listed.status).toBe(200);
    expect((listed.body.payout_destinations as { id: string }[]).map((d) => d.id).sort()).toEqual([bank.body.id, crypto.body.id].sort());
    expectError(
      await sys.http.post('/merchant/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: acc.merchant.keys }),
      405,
      'common.err.method_not_allowed',
    );
    expect((await sys.http.get(`/api/v1/payout-destinations/${bank.body.id as string}`, { headers: acc.auth })).body.id).toBe(bank.body.id);

    expect((await sys.http.call('DELETE', `/api/v1/payout-destinations/${bank.body.id as string}`, { headers: acc.auth })).status).toBe(204);
    expectError(await sys.http.get(`/api/v1/payout-destinations/${bank.body.id as string}`, { headers: acc.auth }), 404, 'common.err.not_found');
    // Another account's destination is not there for this one.
    const other = await account();
    expectError(await sys.http.get(`/api/v1/payout-destinations/${crypto.body.id as string}`, { headers: other.auth }), 404, 'common.err.not_found');
  });

  it('refuses a member whose role may not make payouts, and a session not stepped up', async () => {
    const acc = await account();
    const developer = await member(acc, 'developer');
    expectError(
      await sys.http.post('/api/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: developer.auth }),
      403,
      'common.err.forbidden',
    );
    // A finance member with no second factor at all: payouts need one.
    const m = await sys.merchant();
    const [user] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [m.email]);
    await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [user!.id, acc.merchant.id, 'finance']);
    const plain = { Authorization: `Bearer ${await sys.login(m, { passwordOnly: true })}` };
    expect((await sys.http.post('/api/v1/auth/switch', { merchant_id: acc.merchant.id }, { headers: plain })).status).toBe(200);
    const noFactor = await sys.http.post('/api/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: plain });
    expectError(noFactor, 403, 'auth.err.two_factor_required');
    expectError(
      await sys.http.post('/api/v1/payouts', { shop_id: acc.shop.id, amount: '100.00', destination_id: randomUUID() }, { headers: plain }),
      403,
      'auth.err.two_factor_required',
    );
  });
});

describe('payouts', () => {
  it('checks the amount, the available balance and the destination, and takes amount plus fee from the balance', async () => {
    const acc = await account();
    await credit(acc, '3000.00');
    const to = await destination(acc);
    expectError(await payout(acc, { amount: '99.99', destination_id: to }), 400, 'common.err.validation_failed');
    const tooMuch = await payout(acc, { amount: '5000.01', destination_id: to });
    expectError(tooMuch, 400, 'common.err.validation_failed');
    expect(tooMuch.body.error.details).toEqual([expect.objectContaining({ field: 'amount' })]);
    expectError(await payout(acc, { amount: '2999.00', destination_id: to }), 422, 'payout.err.insufficient_available');
    expectError(await payout(acc, { amount: '100.00', destination_id: randomUUID() }), 404, 'common.err.not_found');

    const made = await payout(acc, { amount: '500.00', destination_id: to, description: 'November' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      shop_id: acc.shop.id,
      amount: '500.00',
      fee: '1.50',
      status: 'approved',
      destination: { id: to, type: 'bank_account', masked: '•••• 1234' },
      livemode: true,
      paid_at: null,
    });
    expect(await balance(acc)).toMatchObject({ balance: '2498.50', available: '2498.50', pending: '0.00' });
    const read = await sys.http.get(`/merchant/v1/payouts/${made.body.id as string}`, { headers: acc.merchant.keys });
    expect(read.body).toEqual(made.body);
    const listed = await sys.http.get(`/merchant/v1/payouts?shop_id=${acc.shop.id}&status=approved`, { headers: acc.merchant.keys });
    expect(listed.body).toMatchObject({ payouts: [made.body], has_more: false, next_cursor: null });
    const statement = await sys.http.get(`/merchant/v1/balance-transactions?shop_id=${acc.shop.id}&type=payout`, { headers: acc.merchant.keys });
    expect(statement.body.balance_transactions).toEqual([
      expect.objectContaining({ type: 'payout', amount: '-500.00', fee: '1.50', net: '-501.50', balance_after: '2498.50', payout_id: made.body.id }),
    ]);
  });

  it('needs approval from the threshold, by another member than the creator; two approvers at once approve once', async () => {
    const acc = await account();
    await credit(acc, '4000.00');
    const to = await destination(acc);
    const big = await payout(acc, { amount: '1000.00', destination_id: to });
    expect(big.body.status).toBe('pending_approval');
    const id = big.body.id as string;
    expectError(await sys.http.post(`/api/v1/payouts/${id}/approve`, {}, { headers: acc.auth }), 403, 'payout.err.own_payout');
    const viewer = await member(acc, 'viewer');
    expectError(await sys.http.post(`/api/v1/payouts/${id}/approve`, {}, { headers: viewer.auth }), 403, 'common.err.forbidden');

    const [a, b] = await Promise.all([member(acc, 'finance'), member(acc, 'admin')]);
    const answers = await Promise.all([a, b].map((m) => sys.http.post(`/api/v1/payouts/${id}/approve`, {}, { headers: m.auth })));
    expect(tally(answers)).toEqual({ '200': 1, '409 payout.err.not_pending_approval': 1 });
    const approved = answers.find((r) => r.status === 200)!;
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect([a.userId, b.userId]).toContain(approved.body.approved_by);
    expect(approved.body.approved_at).not.toBeNull();

    // Each step-up action is in the account's audit log with its user and role (accounts-and-teams.md, "Step-up");
    // the refused approvals are not.
    const audit = await sys.http.get('/api/v1/audit-events', { headers: acc.auth });
    expect(audit.status).toBe(200);
    const [owner] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [acc.merchant.email]);
    const approver = approved.body.approved_by === a.userId ? { user: a.userId, role: 'finance' } : { user: b.userId, role: 'admin' };
    const payoutEntries = (audit.body.audit_events as { type: string; subject: string; user_id: string; role: string }[])
      .filter((e) => e.type.startsWith('payout'))
      .map(({ type, subject, user_id, role }) => ({ type, subject, user_id, role }));
    expect(payoutEntries).toEqual([
      { type: 'payout.approved', subject: id, user_id: approver.user, role: approver.role },
      { type: 'payout.created', subject: id, user_id: owner!.id, role: 'owner' },
      { type: 'payout_destination.added', subject: to, user_id: owner!.id, role: 'owner' },
    ]);
  });

  it('gives the money back on reject (a reason) and on cancel; refuses a cancel once processing', async () => {
    const acc = await account();
    await credit(acc, '3000.00');
    const to = await destination(acc);
    const approver = await member(acc, 'finance');
    const big = await payout(acc, { amount: '1200.00', destination_id: to });
    expectError(
      await sys.http.post(`/api/v1/payouts/${big.body.id as string}/reject`, {}, { headers: approver.auth }),
      400,
      'common.err.validation_failed',
    );
    const rejected = await sys.http.post(`/api/v1/payouts/${big.body.id as string}/reject`, { reason: 'Not agreed' }, { headers: approver.auth });
    expect(rejected.body).toMatchObject({ status: 'rejected', failure_reason: 'Not agreed' });
    expect(await balance(acc)).toMatchObject({ balance: '3000.00' });

    const small = await payout(acc, { amount: '200.00', destination_id: to });
    const canceled = await sys.http.post(`/api/v1/payouts/${small.body.id as string}/cancel`, {}, { headers: acc.auth });
    expect(canceled.body).toMatchObject({ status: 'canceled' });
    expectError(
      await sys.http.post(`/api/v1/payouts/${small.body.id as string}/cancel`, {}, { headers: acc.auth }),
      409,
      'payout.err.not_cancelable',
    );
    expect(await balance(acc)).toMatchObject({ balance: '3000.00' });
    const returned = await sys.http.get(`/merchant/v1/balance-transactions?shop_id=${acc.shop.id}&type=payout_returned`, {
      headers: acc.merchant.keys,
    });
    expect(returned.body.balance_transactions).toHaveLength(2);
    expect(await eventTypes(acc)).toEqual(expect.arrayContaining(['payout.created', 'payout.canceled']));
  });

  it('holds every payout for approval when the account requires it (an owner-only setting)', async () => {
    const acc = await account();
    await credit(acc, '1000.00');
    const to = await destination(acc);
    const admin = await member(acc, 'admin');
    expectError(
      await sys.http.call('PATCH', '/api/v1/account', { headers: admin.auth, body: { require_payout_approval: true } }),
      403,
      'common.err.forbidden',
    );
    const set = await sys.http.call('PATCH', '/api/v1/account', { headers: acc.auth, body: { require_payout_approval: true } });
    expect(set.body).toMatchObject({ require_payout_approval: true });
    expect((await payout(acc, { amount: '100.00', destination_id: to })).body.status).toBe('pending_approval');
  });

  it('refuses past the daily limit and while the account is on hold', async () => {
    const acc = await account();
    await credit(acc, '30000.00');
    const to = await destination(acc);
    for (let i = 0; i < 4; i += 1) expect((await payout(acc, { amount: '5000.00', destination_id: to })).status).toBe(201);
    expectError(await payout(acc, { amount: '100.00', destination_id: to }), 422, 'payout.err.daily_limit');
    await sys.sql('UPDATE gateway.merchants SET payouts_on_hold = true WHERE id = $1', [acc.merchant.id]);
    expectError(await payout(acc, { amount: '100.00', destination_id: to }), 422, 'payout.err.on_hold');
  });

  it('50 payouts at once never pass available, and one Idempotency-Key makes one payout', async () => {
    const acc = await account();
    await credit(acc, '1015.00');
    const to = await destination(acc);
    const answers = await Promise.all(Array.from({ length: 50 }, () => payout(acc, { amount: '100.00', destination_id: to })));
    // 101.50 each (the fee included): 10 fit in 1015.00.
    expect(tally(answers)).toEqual({ '201': 10, '422 payout.err.insufficient_available': 40 });
    expect(await balance(acc)).toMatchObject({ balance: '0.00', available: '0.00' });

    const again = await account();
    await credit(again, '1000.00');
    const dest = await destination(again);
    const key = { 'Idempotency-Key': randomUUID() };
    const keyed = await Promise.all(Array.from({ length: 10 }, () => payout(again, { amount: '100.00', destination_id: dest }, key)));
    const made = keyed.filter((r) => r.status === 201);
    expect(new Set(made.map((r) => r.body.id)).size).toBe(1);
    for (const r of keyed.filter((x) => x.status !== 201)) expectError(r, 409, 'common.err.idempotency_conflict');
    const [count] = await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.payouts WHERE shop_id = $1', [again.shop.id]);
    expect(count!.n).toBe('1');
    const replay = await payout(again, { amount: '100.00', destination_id: dest }, key);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(made[0]!.body.id);
    expectError(await payout(again, { amount: '200.00', destination_id: dest }, key), 409, 'common.err.idempotency_conflict');
  });

  it('settles test payouts in the simulator (paid, failed with the money back) and never a live one', async () => {
    const acc = await account();
    const test = { 'Pl-Mode': 'test' };
    await credit(acc, '1000.00', 'test');
    const to = await destination(acc, { type: 'crypto_address', crypto_address: { network: 'USDT-TRC20', address: TRON } }, test);
    const paid = await payout(acc, { amount: '300.00', destination_id: to }, test);
    expect(paid.body).toMatchObject({ status: 'approved', livemode: false });
    const settled = await sys.http.post(
      `/api/v1/payouts/${paid.body.id as string}/simulate`,
      { status: 'paid' },
      { headers: { ...acc.auth, ...test } },
    );
    expect(settled.body).toMatchObject({ status: 'paid' });
    expect(settled.body.paid_at).not.toBeNull();
    expectError(
      await sys.http.post(`/api/v1/payouts/${paid.body.id as string}/simulate`, { status: 'failed' }, { headers: { ...acc.auth, ...test } }),
      409,
      'payout.err.already_final',
    );
    const failed = await payout(acc, { amount: '200.00', destination_id: to }, test);
    const back = await sys.http.post(
      `/api/v1/payouts/${failed.body.id as string}/simulate`,
      { status: 'failed' },
      { headers: { ...acc.auth, ...test } },
    );
    expect(back.body).toMatchObject({ status: 'failed', failure_reason: 'Simulated failure' });
    expect(await balance(acc, 'test')).toMatchObject({ balance: '698.50' });

    await credit(acc, '500.00');
    const live = await payout(acc, { amount: '100.00', destination_id: await destination(acc) });
    expectError(
      await sys.http.post(`/api/v1/payouts/${live.body.id as string}/simulate`, { status: 'paid' }, { headers: acc.auth }),
      404,
      'common.err.not_found',
    );
    const [clearing] = await sys.sql<{ n: string }>(
      `SELECT count(*) AS n FROM links.ledger_transactions WHERE payout_id = $1 AND type = 'payout_paid'`,
      [paid.body.id],
    );
    expect(clearing!.n).toBe('1');
  });
});

describe('payout events', () => {
  it('delivers payout.created and payout.canceled to a subscribed shop, as every other event', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client', webhookUrl: receiver.url });
      const acc: Account = { merchant, shop, auth: { Authorization: `Bearer ${await sys.login(merchant)}` } };
      const subscribed = await sys.http.call('PATCH', `/api/v1/shops/${shop.id}`, {
        headers: acc.auth,
        body: { webhook_events: ['payout.created', 'payout.paid', 'payout.failed', 'payout.canceled'] },
      });
      expect(subscribed.status).toBe(200);
      await credit(acc, '500.00');
      const made = await payout(acc, { amount: '200.00', destination_id: await destination(acc) });
      expect((await sys.http.post(`/api/v1/payouts/${made.body.id as string}/cancel`, {}, { headers: acc.auth })).status).toBe(200);
      const ofPayout = (event: string) => receiver.waitFor((h) => h.json?.event === event && h.json?.data?.id === made.body.id);
      const created = await ofPayout('payout.created');
      expect(created.json?.data).toMatchObject({ id: made.body.id, status: 'approved', amount: '200.00', destination: { masked: '•••• 1234' } });
      expect((await ofPayout('payout.canceled')).json?.data).toMatchObject({ status: 'canceled' });
      const listed = await sys.http.get(`/merchant/v1/events?type=payout.created&shop_id=${shop.id}`, { headers: merchant.keys });
      expect(listed.body.events).toEqual([expect.objectContaining({ event: 'payout.created', data: expect.objectContaining({ id: made.body.id }) })]);
    } finally {
      await receiver.close();
    }
  });
});

describe('the daily report', () => {
  it("lists a day's payouts with their masked destination, and its total is the balance's move that day", async () => {
    const acc = await account();
    await credit(acc, '3000.00');
    const to = await destination(acc);
    const kept = await payout(acc, { amount: '200.00', destination_id: to });
    const dropped = await payout(acc, { amount: '300.00', destination_id: to });
    expect((await sys.http.post(`/api/v1/payouts/${dropped.body.id as string}/cancel`, {}, { headers: acc.auth })).status).toBe(200);
    // The Moscow day the payouts were made in (UTC+3 all year).
    const day = new Date(Date.parse(kept.body.created_at as string) + 3 * 3_600_000).toISOString().slice(0, 10);
    const res = await sys.http.get(`/merchant/v1/reports/daily?shop_id=${acc.shop.id}&date=${day}`, { headers: acc.merchant.keys });
    expect(res.status).toBe(200);
    // No cell of this report needs quoting: plain comma-separated lines after the byte-order mark.
    const [header, ...lines] = res.text
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const rows = lines.map((l) => Object.fromEntries((header ?? []).map((h, i) => [h, l[i]])));
    const ofPayouts = rows.filter((r) => r.type === 'payout' || r.type === 'payout_returned');
    expect(ofPayouts).toEqual([
      expect.objectContaining({
        id: kept.body.id,
        type: 'payout',
        destination: '•••• 1234',
        status: 'approved',
        amount: '-200.00',
        fee: '1.50',
        net: '-201.50',
      }),
      expect.objectContaining({ id: dropped.body.id, type: 'payout', destination: '•••• 1234', status: 'canceled' }),
      expect.objectContaining({ id: dropped.body.id, type: 'payout_returned', destination: '•••• 1234', status: 'canceled' }),
    ]);
    // The shop started the day at zero: the day's net is its balance now (3,000.00 less 200.00 and its 1.50 fee).
    expect(rows.at(-1)).toMatchObject({ type: 'total', net: '2798.50' });
    expect(await balance(acc)).toMatchObject({ balance: '2798.50' });
  });
});

async function eventTypes(acc: Account): Promise<string[]> {
  const rows = await sys.sql<{ type: string }>(
    `SELECT payload->>'event' AS type FROM links.outbox WHERE payload->>'merchant_id' = $1 ORDER BY created_at`,
    [acc.merchant.id],
  );
  return rows.map((r) => r.type);
}
