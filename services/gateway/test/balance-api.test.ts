import { randomUUID } from 'node:crypto';
import { subjects, type Balance, type BalanceTransaction, type BalanceTransactionPage } from '@pl/contracts';
import { forbidden, notFound, unavailable } from '@pl/errors';
import { expectError } from '../../../tests/support/http';
import { startHarness, type Harness } from './harness';

/** The shop's balance and its statement (docs/money.md, "The ledger") in front of a scripted links service. */
let h: Harness;
let m: Awaited<ReturnType<Harness['merchant']>>;
let session: Record<string, string>;
beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  const res = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status).toBe(200);
  session = { Authorization: `Bearer ${res.body.session_token as string}` };
});
afterAll(() => h.stop());
beforeEach(() => {
  h.reset();
  h.on(subjects.balanceGet.name, async (p, ctx) => balance((p as { shop_id: number }).shop_id, (ctx.identity as { mode: string }).mode === 'live'));
  h.on(subjects.balanceTransactionsList.name, async () => page([transaction()], null));
});

const balance = (shopId: number, livemode = true): Balance => ({
  shop_id: shopId,
  currency: 'RUB',
  livemode,
  balance: '985.00',
  available: '985.00',
  pending: '0.00',
  refund_reserve: '15.00',
  updated_at: '2026-11-25T01:00:00+03:00',
});

const transaction = (over: Partial<BalanceTransaction> = {}): BalanceTransaction => ({
  id: randomUUID(),
  shop_id: 3,
  type: 'payment',
  amount: '1500.00',
  fee: '15.00',
  net: '1485.00',
  balance_after: '1485.00',
  payment_link_id: randomUUID(),
  refund_id: null,
  payout_id: null,
  created_at: '2026-11-25T01:00:00+03:00',
  ...over,
});

const page = (items: BalanceTransaction[], nextCursor: string | null): BalanceTransactionPage => ({
  balance_transactions: items,
  has_more: nextCursor !== null,
  next_cursor: nextCursor,
});

const identity = (auth: 'api_key' | 'session', mode: 'live' | 'test' = 'live') =>
  expect.objectContaining({ kind: 'merchant', merchant_id: m.id, auth, mode });
const fields = (res: { body: { error: { details: { field: string }[] } } }) => res.body.error.details.map((d) => d.field).sort();

describe('GET /merchant/v1/balance and /api/v1/shops/{id}/balance', () => {
  it("answers the shop's balance in the caller's mode", async () => {
    const live = await h.request('GET', '/merchant/v1/balance?shop_id=3', { headers: m.keys });
    const test = await h.request('GET', '/api/v1/shops/3/balance', { headers: { ...session, 'Pl-Mode': 'test' } });
    expect([live.status, live.body]).toEqual([200, balance(3, true)]);
    expect([test.status, test.body]).toEqual([200, balance(3, false)]);
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [subjects.balanceGet.name, { shop_id: 3 }, identity('api_key')],
      [subjects.balanceGet.name, { shop_id: 3 }, identity('session', 'test')],
    ]);
  });

  it('answers 400 for a missing or bad shop_id on the merchant route, 404 for a path that cannot name a shop', async () => {
    for (const query of ['', '?shop_id=0', '?shop_id=x', '?shop_id=3&extra=1']) {
      expectError(await h.request('GET', `/merchant/v1/balance${query}`, { headers: m.keys }), 400, 'common.err.validation_failed');
    }
    expectError(await h.request('GET', '/api/v1/shops/x/balance', { headers: session }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });

  it("passes links' 403 for another merchant's shop and 404 for an unknown one on", async () => {
    h.on(subjects.balanceGet.name, async () => {
      throw forbidden('Shop belongs to another merchant');
    });
    expectError(await h.request('GET', '/merchant/v1/balance?shop_id=9', { headers: m.keys }), 403, 'common.err.forbidden');
    h.on(subjects.balanceGet.name, async () => {
      throw notFound('Shop not found');
    });
    expectError(await h.request('GET', '/api/v1/shops/9/balance', { headers: session }), 404, 'common.err.not_found');
  });
});

describe('GET …/balance-transactions as JSON', () => {
  it('lists with the filters mapped for links under both families, with the defaults without a query', async () => {
    const listed = page([transaction()], 'c2');
    h.on(subjects.balanceTransactionsList.name, async () => listed);
    const merchant = await h.request('GET', '/merchant/v1/balance-transactions?shop_id=3&type=refund&limit=5&cursor=c1', { headers: m.keys });
    const dashboard = await h.request('GET', '/api/v1/balance-transactions?format=json', { headers: session });
    expect([merchant.status, dashboard.status]).toEqual([200, 200]);
    expect([merchant.body, dashboard.body]).toEqual([listed, listed]);
    expect(h.calls.map((c) => [c.payload, c.identity])).toEqual([
      [{ shop_id: 3, type: 'refund', limit: 5, cursor: 'c1' }, identity('api_key')],
      [{ shop_id: null, type: null, limit: 20, cursor: null }, identity('session')],
    ]);
  });

  it('answers 400 naming every bad filter; format is the session route’s only', async () => {
    const res = await h.request('GET', '/api/v1/balance-transactions?shop_id=0&type=fee&limit=0&format=xlsx', { headers: session });
    expectError(res, 400, 'common.err.validation_failed');
    expect(fields(res)).toEqual(['format', 'limit', 'shop_id', 'type']);
    const merchant = await h.request('GET', '/merchant/v1/balance-transactions?format=csv', { headers: m.keys });
    expectError(merchant, 400, 'common.err.validation_failed');
    expect(fields(merchant)).toEqual(['format']);
    expect(h.calls).toEqual([]);
  });
});

describe('GET /api/v1/balance-transactions?format=csv', () => {
  const BOM = '\uFEFF';
  const HEADER = 'id,shop_id,type,amount,fee,net,balance_after,payment_link_id,refund_id,created_at';
  const csvLine = (t: BalanceTransaction) =>
    [t.id, t.shop_id, t.type, t.amount, t.fee, t.net, t.balance_after, t.payment_link_id ?? '', t.refund_id ?? '', t.created_at].join(',');

  const download = (query: string, headers: Record<string, string> = session) =>
    fetch(`${h.baseUrl}/api/v1/balance-transactions?format=csv${query}`, { headers });

  it('answers every page as one RFC 4180 statement: BOM, header row, CRLF, the file named by shop and mode', async () => {
    const pages = [
      page([transaction(), transaction({ type: 'refund', amount: '-50.00', fee: '0.00', net: '-50.00', refund_id: randomUUID() })], 'c2'),
      page([transaction({ type: 'refund_failed', amount: '50.00', fee: '0.00', net: '50.00', payment_link_id: null })], 'c3'),
      page([], null),
    ];
    h.on(subjects.balanceTransactionsList.name, async (p) => pages[[null, 'c2', 'c3'].indexOf((p as { cursor: string | null }).cursor)]!);
    const res = await download('&shop_id=3&type=refund', { ...session, 'Pl-Mode': 'test' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="statement-3-test.csv"');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = pages.flatMap((p) => p.balance_transactions);
    expect(bytes.toString('utf8')).toBe(`${BOM}${[HEADER, ...rows.map(csvLine)].join('\r\n')}\r\n`);
    // Each page from the cursor of the one before, the largest pages when the query names no limit.
    expect(h.calls.map((c) => [c.payload, c.identity])).toEqual([
      [{ shop_id: 3, type: 'refund', limit: 100, cursor: null }, identity('session', 'test')],
      [{ shop_id: 3, type: 'refund', limit: 100, cursor: 'c2' }, identity('session', 'test')],
      [{ shop_id: 3, type: 'refund', limit: 100, cursor: 'c3' }, identity('session', 'test')],
    ]);
  });

  it('names an all-shops statement `all`; an empty one is the header alone', async () => {
    h.on(subjects.balanceTransactionsList.name, async () => page([], null));
    const res = await download('');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="statement-all-live.csv"');
    expect(await res.text()).toBe(`${HEADER}\r\n`); // fetch's text() drops the BOM
    expect(h.calls.map((c) => c.payload)).toEqual([{ shop_id: null, type: null, limit: 100, cursor: null }]);
  });

  it("reads in pages of its own size whatever the query's limit: limit=1 over 601 rows asks links 7 times, not 601", async () => {
    const rows = Array.from({ length: 601 }, () => transaction());
    // Links as it is: pages of the size asked for, each cursor the offset of the next row.
    h.on(subjects.balanceTransactionsList.name, async (p) => {
      const { limit, cursor } = p as { limit: number; cursor: string | null };
      const from = cursor === null ? 0 : Number(cursor);
      const to = Math.min(from + limit, rows.length);
      return page(rows.slice(from, to), to < rows.length ? String(to) : null);
    });
    const res = await download('&limit=1');
    const lines = (await res.text()).split('\r\n');
    expect(lines).toHaveLength(603); // the header, 601 rows, the empty tail after the last CRLF
    expect(h.calls.map((c) => (c.payload as { limit: number }).limit)).toEqual(Array(7).fill(100));
  });

  it('writes each page as it arrives: the first rows reach the client before links is asked for the next page', async () => {
    const first = transaction();
    let answerSecond!: () => void;
    const secondAsked = new Promise<void>((resolve) => {
      h.on(subjects.balanceTransactionsList.name, async (p) => {
        if ((p as { cursor: string | null }).cursor === null) return page([first], 'c2');
        resolve();
        await new Promise<void>((release) => (answerSecond = release));
        return page([], null);
      });
    });
    const res = await download('');
    const reader = res.body!.getReader();
    let received = '';
    while (!received.includes(first.id)) received += Buffer.from((await reader.read()).value).toString('utf8');
    await secondAsked;
    answerSecond();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += Buffer.from(chunk.value).toString('utf8');
    expect(received).toBe(`${BOM}${HEADER}\r\n${csvLine(first)}\r\n`);
  });

  it('answers an error as JSON when the first page is refused, and cuts the download when a later page fails', async () => {
    h.on(subjects.balanceTransactionsList.name, async () => {
      throw forbidden('Shop belongs to another merchant');
    });
    expectError(await h.request('GET', '/api/v1/balance-transactions?format=csv&shop_id=9', { headers: session }), 403, 'common.err.forbidden');
    h.on(subjects.balanceTransactionsList.name, async (p) => {
      if ((p as { cursor: string | null }).cursor === null) return page([transaction()], 'c2');
      throw unavailable('links is down');
    });
    const res = await download('');
    expect(res.status).toBe(200);
    // An incomplete statement must not pass for a whole one: the body ends in an error, not in a clean end.
    await expect(res.text()).rejects.toThrow();
  });
});
