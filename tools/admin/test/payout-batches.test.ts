import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatKopecks } from '@pl/money';
import { PAYMENT_ORDER_KIND, parseExchangeFile, payoutIdsIn } from '@pl/payout-rails';
import { BankPayoutsSystem, COMPANY, moscowDay, PAYER_ENV, SOLE_PROPRIETOR } from './bank-payouts.fixture';

/** payout:batch:create, :export, :sent and :list in-process against a real Postgres (docs/payouts.md, "Bank account"). */
describe('admin CLI bank payout batches', () => {
  let sys: BankPayoutsSystem;
  let dir: string;

  beforeAll(async () => {
    sys = await BankPayoutsSystem.start('payoutbatches');
    dir = mkdtempSync(join(tmpdir(), 'payout-batches-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await sys?.stop();
  });

  it('gathers every approved live bank payout into one batch, moves them to processing, and leaves the rest', async () => {
    const shop = await sys.fundedShop();
    const testShop = await sys.fundedShop(false);
    const a = await sys.payout(shop, { amount: 10_000, fee: 500 });
    const b = await sys.payout(shop, { amount: 25_050, details: SOLE_PROPRIETOR });
    const awaiting = await sys.payout(shop, { amount: 15_000, status: 'pending_approval' });
    const crypto = await sys.payout(shop, { amount: 12_000, rail: 'heleket', details: { network: 'tron', address: 'T' } });
    const sandbox = await sys.payout(testShop, { amount: 13_000, livemode: false, rail: 'sandbox' });

    const created = await sys.run(['payout:batch:create']);
    expect(created).toMatchObject({ exitCode: 0, body: { count: 2, total: '350.50', exported_at: null, sent_at: null } });
    const batchId = created.body.batch_id as string;
    const items = await sys.db.query<{ payout_id: string; batch_id: string; amount: string }>(
      `SELECT payout_id, batch_id, amount FROM payout_batch_items WHERE batch_id = $1 ORDER BY order_number`,
      [batchId],
    );
    expect(items).toEqual([
      { payout_id: a, batch_id: batchId, amount: '10000' },
      { payout_id: b, batch_id: batchId, amount: '25050' },
    ]);
    await expect(sys.statusOf([a, b, awaiting, crypto, sandbox])).resolves.toEqual({
      [a]: 'processing',
      [b]: 'processing',
      [awaiting]: 'pending_approval',
      [crypto]: 'approved',
      [sandbox]: 'approved',
    });
    await expect(sys.run(['payout:batch:create'])).resolves.toMatchObject({ exitCode: 0, body: { batch_id: null, count: 0, total: '0.00' } });
  });

  it('never puts a payout in two batches when two creates run at once', async () => {
    const shop = await sys.fundedShop(true, 3);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => sys.payout(shop, { amount: 10_000 + i * 100 })));
    const [one, two] = await Promise.all([sys.run(['payout:batch:create']), sys.run(['payout:batch:create'])]);
    expect([one?.exitCode, two?.exitCode]).toEqual([0, 0]);
    // The second waited for the first and found nothing left: one batch of all twelve, never two halves.
    expect([one?.body.count, two?.body.count].sort()).toEqual([0, 12]);
    const placed = await sys.db.query<{ payout_id: string; batches: number }>(
      `SELECT payout_id, count(*)::int AS batches FROM payout_batch_items WHERE payout_id = ANY($1::uuid[]) GROUP BY payout_id`,
      [ids],
    );
    expect(placed).toHaveLength(12);
    expect(placed.every((p) => p.batches === 1)).toBe(true);
    // And the database refuses a second place for a payout whoever asks.
    const [first] = ids;
    await expect(
      sys.db.query(
        `INSERT INTO payout_batch_items (payout_id, batch_id, order_number, amount) SELECT payout_id, batch_id, 999999, amount FROM payout_batch_items WHERE payout_id = $1`,
        [first],
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'payout_batch_items_pkey' });
  });

  it('exports a 1C file that parses back order by order as the payouts and the payer, written whole', async () => {
    const shop = await sys.fundedShop();
    const company = await sys.payout(shop, { amount: 123_456, fee: 1_000 });
    const person = await sys.payout(shop, { amount: 10_005, details: SOLE_PROPRIETOR });
    const batchId = (await sys.run(['payout:batch:create'])).body.batch_id as string;
    const out = join(dir, 'batch.txt');

    const exported = await sys.run(['payout:batch:export', '--batch', batchId, '--out', out]);
    expect(exported).toMatchObject({
      exitCode: 0,
      body: { batch_id: batchId, file: out, orders: 2, total: '1334.61', export_count: 1, sent_at: null },
    });
    expect(readdirSync(dir)).toEqual(['batch.txt']);
    const bytes = readFileSync(out);
    expect(bytes.toString('latin1')).toContain('\r\n');
    const parsed = parseExchangeFile(bytes);
    expect(parsed.header).toMatchObject({
      ВерсияФормата: '1.03',
      Кодировка: 'Windows',
      РасчСчет: PAYER_ENV.PAYOUT_PAYER_ACCOUNT,
      Документ: PAYMENT_ORDER_KIND,
    });

    const numbers = await sys.db.query<{ payout_id: string; order_number: number }>(
      `SELECT payout_id, order_number FROM payout_batch_items WHERE batch_id = $1`,
      [batchId],
    );
    const numberOf = new Map(numbers.map((n) => [n.payout_id, String(n.order_number)]));
    const [exportedAt] = await sys.db.query<{ exported_at: Date }>(`SELECT exported_at FROM payout_batches WHERE id = $1`, [batchId]);
    const day = moscowDay(exportedAt!.exported_at);
    expect(exported.body.order_date).toBe(day.split('.').reverse().join('-'));
    const expected = [
      { id: company, amount: '1234.56', payee: COMPANY },
      { id: person, amount: '100.05', payee: { ...SOLE_PROPRIETOR, kpp: undefined } },
    ];
    expect(parsed.documents).toHaveLength(2);
    parsed.documents.forEach((doc, i) => {
      const want = expected[i]!;
      expect(doc.kind).toBe(PAYMENT_ORDER_KIND);
      expect(payoutIdsIn(doc.fields['НазначениеПлатежа'] ?? '')).toEqual([want.id]);
      expect(doc.fields).toEqual({
        Номер: numberOf.get(want.id),
        Дата: day,
        Сумма: want.amount,
        ПлательщикСчет: PAYER_ENV.PAYOUT_PAYER_ACCOUNT,
        Плательщик: PAYER_ENV.PAYOUT_PAYER_NAME,
        ПлательщикИНН: PAYER_ENV.PAYOUT_PAYER_INN,
        ПлательщикКПП: PAYER_ENV.PAYOUT_PAYER_KPP,
        Плательщик1: PAYER_ENV.PAYOUT_PAYER_NAME,
        ПлательщикРасчСчет: PAYER_ENV.PAYOUT_PAYER_ACCOUNT,
        ПлательщикБанк1: PAYER_ENV.PAYOUT_PAYER_BANK,
        ПлательщикБИК: PAYER_ENV.PAYOUT_PAYER_BIK,
        ПолучательСчет: want.payee.account,
        Получатель: want.payee.recipient_name,
        ПолучательИНН: want.payee.inn,
        ...(want.payee.kpp ? { ПолучательКПП: want.payee.kpp } : {}),
        Получатель1: want.payee.recipient_name,
        ПолучательРасчСчет: want.payee.account,
        ПолучательБИК: want.payee.bik,
        ВидОплаты: '01',
        Очередность: '5',
        НазначениеПлатежа: `Выплата по договору оферты, payout ${want.id}. НДС не облагается`,
        НазначениеПлатежа1: `Выплата по договору оферты, payout ${want.id}. НДС не облагается`,
      });
    });

    // Exported again (the file lost): the same orders, numbers and date, so the bank's client sees a repeated upload.
    const again = await sys.run(['payout:batch:export', '--batch', batchId, '--out', out]);
    expect(again).toMatchObject({ exitCode: 0, body: { export_count: 2 } });
    expect(parseExchangeFile(readFileSync(out)).documents).toEqual(parsed.documents);
  });

  it('refuses to export without the payer set right, naming the variable, and writes nothing', async () => {
    const shop = await sys.fundedShop();
    await sys.payout(shop, { amount: 10_000 });
    const batchId = (await sys.run(['payout:batch:create'])).body.batch_id as string;
    const out = join(dir, 'refused.txt');
    const { PAYOUT_PAYER_BANK: _bank, ...withoutBank } = PAYER_ENV;
    const missing = await sys.run(['payout:batch:export', '--batch', batchId, '--out', out], withoutBank);
    expect(missing).toMatchObject({
      exitCode: 2,
      body: { error: { code: 'common.err.invalid_config', details: [{ field: 'PAYOUT_PAYER_BANK', message: 'is not set' }] } },
    });
    // 7707083894: the INN's check digit broken.
    const wrongInn = await sys.run(['payout:batch:export', '--batch', batchId, '--out', out], { ...PAYER_ENV, PAYOUT_PAYER_INN: '7707083894' });
    expect(wrongInn).toMatchObject({ exitCode: 2, body: { error: { code: 'common.err.invalid_config', details: [{ field: 'PAYOUT_PAYER_INN' }] } } });
    const wrongKey = await sys.run(['payout:batch:export', '--batch', batchId, '--out', out], {
      ...PAYER_ENV,
      PAYOUT_PAYER_ACCOUNT: '40702810938000012346',
    });
    expect(wrongKey).toMatchObject({ exitCode: 2, body: { error: { details: [{ field: 'PAYOUT_PAYER_ACCOUNT' }] } } });
    const noDirectory = await sys.run(['payout:batch:export', '--batch', batchId, '--out', join(dir, 'absent', 'batch.txt')]);
    expect(noDirectory).toMatchObject({ exitCode: 2, body: { error: { code: 'common.err.validation_failed', details: [{ field: 'out' }] } } });
    expect(readdirSync(dir)).not.toContain('refused.txt');
    const [batch] = await sys.db.query<{ export_count: number }>(`SELECT export_count FROM payout_batches WHERE id = $1`, [batchId]);
    expect(batch).toEqual({ export_count: 0 });
  });

  it('records the upload only after an export, keeps the first time, and lists batches with their progress', async () => {
    const shop = await sys.fundedShop();
    await sys.payout(shop, { amount: 20_000 });
    const batchId = (await sys.run(['payout:batch:create'])).body.batch_id as string;
    const early = await sys.run(['payout:batch:sent', '--batch', batchId]);
    expect(early).toMatchObject({ exitCode: 2, body: { error: { code: 'common.err.validation_failed', details: [{ field: 'batch' }] } } });
    await expect(sys.run(['payout:batch:sent', '--batch', '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b'])).resolves.toMatchObject({
      exitCode: 1,
      body: { error: { code: 'common.err.not_found' } },
    });
    await sys.run(['payout:batch:export', '--batch', batchId, '--out', join(dir, 'sent.txt')]);
    const sent = await sys.run(['payout:batch:sent', '--batch', batchId]);
    expect(sent).toMatchObject({ exitCode: 0, body: { batch_id: batchId, count: 1, total: formatKopecks(20_000) } });
    expect(sent.body.sent_at).toEqual(expect.any(String));
    await expect(sys.run(['payout:batch:sent', '--batch', batchId])).resolves.toMatchObject({ body: { sent_at: sent.body.sent_at } });

    const listed = await sys.run(['payout:batch:list', '--limit', '1']);
    expect(listed).toEqual({
      exitCode: 0,
      stderr: '',
      body: { batches: [expect.objectContaining({ batch_id: batchId, count: 1, sent_at: sent.body.sent_at, processing: 1, paid: 0, failed: 0 })] },
    });
  });
});
