import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BankPayoutsSystem, COMPANY, PAYER_ENV, windows1251 } from './bank-payouts.fixture';

const PLATFORM = PAYER_ENV.PAYOUT_PAYER_ACCOUNT;
/** A receiving bank's transit account, where returns usually come from. */
const TRANSIT = '30232810400000000001';
const DAY = '01.12.2026';

interface Line {
  number: string;
  amount: string;
  purpose: string;
}
const purposeOf = (payoutId: string): string => `Выплата по договору оферты, payout ${payoutId}. НДС не облагается`;

/** An executed order as the bank's statement shows it: a debit of the platform's account. */
const debit = (l: Line): string[] => [
  'СекцияДокумент=Платежное поручение',
  `Номер=${l.number}`,
  `Дата=${DAY}`,
  `Сумма=${l.amount}`,
  `ПлательщикСчет=${PLATFORM}`,
  `Плательщик=ИНН ${PAYER_ENV.PAYOUT_PAYER_INN} ${PAYER_ENV.PAYOUT_PAYER_NAME}`,
  `ПлательщикИНН=${PAYER_ENV.PAYOUT_PAYER_INN}`,
  `ПлательщикБИК=${PAYER_ENV.PAYOUT_PAYER_BIK}`,
  `ПолучательСчет=${COMPANY.account}`,
  `Получатель1=${COMPANY.recipient_name}`,
  `ПолучательИНН=${COMPANY.inn}`,
  `ПолучательБИК=${COMPANY.bik}`,
  `ДатаСписано=${DAY}`,
  `НазначениеПлатежа=${l.purpose}`,
  'КонецДокумента',
];

/** Money coming back (a return) or in (anything else): a credit of the platform's account. */
const credit = (l: Line): string[] => [
  'СекцияДокумент=Банковский ордер',
  `Номер=${l.number}`,
  `Дата=${DAY}`,
  `Сумма=${l.amount}`,
  `ПлательщикСчет=${TRANSIT}`,
  'Плательщик1=АО «ТБанк»',
  `ПлательщикБИК=${COMPANY.bik}`,
  `ПолучательСчет=${PLATFORM}`,
  `ПолучательБИК=${PAYER_ENV.PAYOUT_PAYER_BIK}`,
  `ДатаПоступило=${DAY}`,
  `НазначениеПлатежа=${l.purpose}`,
  'КонецДокумента',
];

function statement(documents: string[][], account: string = PLATFORM): Buffer {
  const lines = [
    '1CClientBankExchange',
    'ВерсияФормата=1.03',
    'Кодировка=Windows',
    'Отправитель=СберБизнес',
    'Получатель=',
    `ДатаСоздания=${DAY}`,
    'ВремяСоздания=18:00:00',
    `ДатаНачала=${DAY}`,
    `ДатаКонца=${DAY}`,
    `РасчСчет=${account}`,
    'СекцияРасчСчет',
    `ДатаНачала=${DAY}`,
    `ДатаКонца=${DAY}`,
    `РасчСчет=${account}`,
    'НачальныйОстаток=1000000.00',
    'КонецРасчСчет',
    ...documents.flat(),
    'КонецФайла',
  ];
  return windows1251(`${lines.join('\r\n')}\r\n`);
}

/** payout:statement:import in-process against a real Postgres (docs/payouts.md, "Bank account"). */
describe('admin CLI bank statement import', () => {
  let sys: BankPayoutsSystem;
  let dir: string;
  const file = (name: string, bytes: Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  /** A funded shop's payouts, batched (processing), and the shop's available balance after them. */
  const batched = async (amounts: number[]) => {
    const shop = await sys.fundedShop();
    const ids = [];
    for (const amount of amounts) ids.push(await sys.payout(shop, { amount, fee: 500 }));
    const created = await sys.run(['payout:batch:create']);
    expect(created.body.count).toBe(amounts.length);
    return { shop, ids };
  };
  const available = async (shopId: number): Promise<number> => {
    const [row] = await sys.db.query<{ balance: string }>(`SELECT balance FROM ledger_accounts WHERE shop_id = $1 AND kind = 'available'`, [shopId]);
    return Number(row?.balance);
  };
  const eventsOf = (ids: string[]) =>
    sys.db.query<{ message_key: string; event: string }>(
      `SELECT message_key, payload->>'event' AS event FROM outbox WHERE message_key = ANY($1::text[]) ORDER BY message_key, created_at`,
      [ids],
    );
  /** Everything an import could change. */
  const snapshot = async () => ({
    payouts: await sys.db.query(`SELECT id, status, failure_reason, paid_at, failed_at, updated_at FROM payouts ORDER BY id`),
    ledger: await sys.db.query(`SELECT id FROM ledger_transactions ORDER BY id`),
    accounts: await sys.db.query(`SELECT id, balance FROM ledger_accounts ORDER BY id`),
    outbox: await sys.db.query(`SELECT id FROM outbox ORDER BY id`),
    lines: await sys.db.query(`SELECT line_key, payout_id FROM payout_statement_lines ORDER BY line_key`),
  });

  beforeAll(async () => {
    sys = await BankPayoutsSystem.start('payoutstatement');
    dir = mkdtempSync(join(tmpdir(), 'payout-statement-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await sys?.stop();
  });

  it('marks the executed order paid, the returned one failed with the bank reason, and reports the unknown lines; twice changes nothing', async () => {
    const { shop, ids } = await batched([10_000, 20_000, 30_000]);
    const [executed, returned, untouched] = ids as [string, string, string];
    const before = await available(shop.shopId);
    const path = file(
      'statement.txt',
      statement([
        debit({ number: '101', amount: '100.00', purpose: purposeOf(executed) }),
        // The return listed before its execution: the import applies debits first.
        credit({ number: '7', amount: '200.00', purpose: `Возврат: счет получателя закрыт. ${purposeOf(returned)}` }),
        debit({ number: '102', amount: '200.00', purpose: purposeOf(returned) }),
        debit({ number: '5501', amount: '150.00', purpose: 'Комиссия за ведение счета за ноябрь 2026' }),
        credit({ number: '8', amount: '300.00', purpose: `Возврат ${purposeOf(randomUUID())}` }),
      ]),
    );

    const first = await sys.run(['payout:statement:import', path]);
    expect(first).toMatchObject({ exitCode: 0, body: { lines: 5, paid: 2, failed: 1, already_imported: 0, unmatched: 2 } });
    expect(first.body.unmatched_lines).toEqual([
      expect.objectContaining({
        direction: 'debit',
        number: '5501',
        amount: '150.00',
        payout_id: null,
        outcome: 'unmatched',
        reason: 'names_no_payout',
      }),
      expect.objectContaining({ direction: 'credit', number: '8', outcome: 'unmatched', reason: 'unknown_payout' }),
    ]);
    expect(sys.warnings).toContain('warning: 2 statement line(s) left unmatched: see unmatched_lines');
    await expect(sys.statusOf(ids)).resolves.toEqual({ [executed]: 'paid', [returned]: 'failed', [untouched]: 'processing' });
    const [failed] = await sys.db.query<{ failure_reason: string }>(`SELECT failure_reason FROM payouts WHERE id = $1`, [returned]);
    expect(failed?.failure_reason).toBe(`Returned by the bank: Возврат: счет получателя закрыт. ${purposeOf(returned)}`);
    // The returned payout's amount and fee are the shop's again; the others' stay out.
    expect((await available(shop.shopId)) - before).toBe(20_500);
    await expect(eventsOf([executed, returned, untouched])).resolves.toEqual(
      [
        { message_key: executed, event: 'payout.paid' },
        { message_key: returned, event: 'payout.paid' },
        { message_key: returned, event: 'payout.failed' },
      ].sort((a, b) => a.message_key.localeCompare(b.message_key)),
    );

    const settled = await snapshot();
    const second = await sys.run(['payout:statement:import', path]);
    expect(second).toMatchObject({ exitCode: 0, body: { lines: 5, paid: 0, failed: 0, already_imported: 3, unmatched: 2, applied: [] } });
    await expect(snapshot()).resolves.toEqual(settled);
  });

  it('returns a payout paid in an earlier statement, and never applies a second debit, another amount or a line naming two payouts', async () => {
    const { shop, ids } = await batched([40_000, 50_000]);
    const [paidThenReturned, other] = ids as [string, string];
    await sys.run([
      'payout:statement:import',
      file('day1.txt', statement([debit({ number: '201', amount: '400.00', purpose: purposeOf(paidThenReturned) })])),
    ]);
    const afterPaid = await available(shop.shopId);

    const day2 = await sys.run([
      'payout:statement:import',
      file(
        'day2.txt',
        statement([
          debit({ number: '299', amount: '400.00', purpose: purposeOf(paidThenReturned) }),
          debit({ number: '202', amount: '500.01', purpose: purposeOf(other) }),
          debit({ number: '203', amount: '500.00', purpose: `${purposeOf(other)} ${purposeOf(paidThenReturned)}` }),
          credit({ number: '31', amount: '400.00', purpose: `Возврат средств: неверные реквизиты. ${purposeOf(paidThenReturned)}` }),
        ]),
      ),
    ]);
    expect(day2.body).toMatchObject({ lines: 4, paid: 0, failed: 1, unmatched: 3 });
    expect(day2.body.unmatched_lines).toEqual([
      expect.objectContaining({ number: '299', payout_id: paidThenReturned, reason: 'second_line_for_payout' }),
      expect.objectContaining({ number: '202', payout_id: other, reason: 'amount_mismatch' }),
      expect.objectContaining({ number: '203', payout_id: null, reason: 'names_several_payouts' }),
    ]);
    await expect(sys.statusOf(ids)).resolves.toEqual({ [paidThenReturned]: 'failed', [other]: 'processing' });
    expect((await available(shop.shopId)) - afterPaid).toBe(40_500);
  });

  it('moves each payout once when two imports of one statement run at once', async () => {
    const { ids } = await batched([11_000, 12_000, 13_000]);
    const path = file(
      'twice-at-once.txt',
      statement([
        ...ids.map((id, i) => debit({ number: String(401 + i), amount: `${110 + i * 10}.00`, purpose: purposeOf(id) })),
        credit({ number: '41', amount: '120.00', purpose: `Возврат. ${purposeOf(ids[1]!)}` }),
      ]),
    );
    const runs = await Promise.all([sys.run(['payout:statement:import', path]), sys.run(['payout:statement:import', path])]);
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0]);
    await expect(sys.statusOf(ids)).resolves.toEqual({ [ids[0]!]: 'paid', [ids[1]!]: 'failed', [ids[2]!]: 'paid' });
    const postings = await sys.db.query<{ payout_id: string; type: string; n: number }>(
      `SELECT payout_id, type, count(*)::int AS n FROM ledger_transactions WHERE payout_id = ANY($1::uuid[]) GROUP BY 1, 2`,
      [ids],
    );
    // One creation, one paid and at most one return per payout, whichever import applied them.
    expect(postings.every((p) => p.n === 1)).toBe(true);
    expect(postings).toHaveLength(7);
    const events = await eventsOf(ids);
    expect(events).toHaveLength(4);
    const [lines] = await sys.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM payout_statement_lines WHERE payout_id = ANY($1::uuid[])`, [
      ids,
    ]);
    expect(lines).toEqual({ n: 4 });
  });

  it('leaves test payouts and payouts never batched alone', async () => {
    const testShop = await sys.fundedShop(false);
    const sandbox = await sys.payout(testShop, { amount: 10_000, livemode: false, rail: 'sandbox' });
    const shop = await sys.fundedShop();
    const notBatched = await sys.payout(shop, { amount: 10_000, status: 'pending_approval' });
    const run = await sys.run([
      'payout:statement:import',
      file(
        'stray.txt',
        statement([
          debit({ number: '301', amount: '100.00', purpose: purposeOf(sandbox) }),
          debit({ number: '302', amount: '100.00', purpose: purposeOf(notBatched) }),
        ]),
      ),
    ]);
    expect(run.body.unmatched_lines).toEqual([
      expect.objectContaining({ payout_id: sandbox, reason: 'not_a_bank_payout' }),
      expect.objectContaining({ payout_id: notBatched, reason: 'payout_not_movable', detail: 'the payout is pending_approval' }),
    ]);
    await expect(sys.statusOf([sandbox, notBatched])).resolves.toEqual({ [sandbox]: 'approved', [notBatched]: 'pending_approval' });
  });

  it('refuses a statement of another account, a file cut short, and a missing file, changing nothing', async () => {
    const before = await snapshot();
    const other = await sys.run(['payout:statement:import', file('other.txt', statement([], '40702810538000054321'))]);
    expect(other).toMatchObject({ exitCode: 2, body: { error: { code: 'common.err.validation_failed', details: [{ field: 'file' }] } } });
    const cut = statement([debit({ number: '1', amount: '1.00', purpose: 'x' })]).subarray(0, 400);
    await expect(sys.run(['payout:statement:import', file('cut.txt', cut)])).resolves.toMatchObject({ exitCode: 2 });
    await expect(sys.run(['payout:statement:import', join(dir, 'absent.txt')])).resolves.toMatchObject({ exitCode: 2 });
    await expect(sys.run(['payout:statement:import'])).resolves.toMatchObject({ exitCode: 2 });
    await expect(snapshot()).resolves.toEqual(before);
  });

  it('leaves the ledger balanced after every import (ledger:verify)', async () => {
    const verified = await sys.run(['ledger:verify']);
    expect(verified).toMatchObject({ exitCode: 0, body: { unbalanced: 0, balances_mismatched: 0 } });
    expect(verified.body.transactions).toEqual(expect.any(Number));
    expect(verified.body.transactions).toBeGreaterThan(10);
  });
});
