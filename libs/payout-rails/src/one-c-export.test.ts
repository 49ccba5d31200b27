import iconv from 'iconv-lite';
import { ExchangeFileError } from './exchange-file-error';
import { exportPaymentOrders, type PaymentOrdersFile } from './one-c-export';
import { parseExchangeFile } from './one-c-parse';

// The platform's account at Sberbank (Sberbank's published INN, KPP, BIK and correspondent account; the account's
// control key computed for BIK 044525225).
const payer = {
  name: 'ООО «Платёжные ссылки»',
  inn: '7707083893',
  kpp: '773601001',
  bik: '044525225',
  account: '40702810938000012345',
  bank: 'ПАО СБЕРБАНК',
  correspondentAccount: '30101810400000000225',
};
const company = {
  name: 'ООО "Ромашка"',
  inn: '7830002293',
  kpp: '783001001',
  bik: '044525974',
  account: '40802810400000012345',
  bank: 'АО «ТБанк»',
};
const soleProprietor = { name: 'ИП Иванов Иван Иванович', inn: '500100732259', bik: '044525225', account: '40802810738000000017' };

const file = (): PaymentOrdersFile => ({
  payer,
  createdAt: new Date('2026-11-28T07:15:30Z'),
  orders: [
    {
      number: 17,
      // 22:30 UTC is 01:30 the next day in Moscow: the order is dated by the bank's (Moscow) day.
      date: new Date('2026-11-27T22:30:00Z'),
      amountKopecks: 12_345_678,
      payee: company,
      purpose: 'Выплата по договору № 12, id 3f2c1b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f. НДС не облагается',
    },
    {
      number: 18,
      date: new Date('2026-11-29T09:00:00Z'),
      amountKopecks: 10_005,
      payee: soleProprietor,
      purpose: 'Выплата 9b2e7c4a-1f3d-4e8b-a6c5-7d9e0f1a2b3c. НДС не облагается',
    },
  ],
});

describe('exportPaymentOrders', () => {
  it('writes a file that reads back with every header and order field as given', () => {
    const parsed = parseExchangeFile(exportPaymentOrders({ ...file(), sender: 'Платформа 1.0' }));

    expect(parsed.header).toEqual({
      ВерсияФормата: '1.03',
      Кодировка: 'Windows',
      Отправитель: 'Платформа 1.0',
      Получатель: '',
      ДатаСоздания: '28.11.2026',
      ВремяСоздания: '10:15:30',
      ДатаНачала: '28.11.2026',
      ДатаКонца: '29.11.2026',
      РасчСчет: '40702810938000012345',
      Документ: 'Платежное поручение',
    });
    expect(parsed.accounts).toEqual([]);
    expect(parsed.documents.map((d) => d.kind)).toEqual(['Платежное поручение', 'Платежное поручение']);
    const payerFields = {
      ПлательщикСчет: '40702810938000012345',
      Плательщик: 'ООО «Платёжные ссылки»',
      ПлательщикИНН: '7707083893',
      ПлательщикКПП: '773601001',
      Плательщик1: 'ООО «Платёжные ссылки»',
      ПлательщикРасчСчет: '40702810938000012345',
      ПлательщикБанк1: 'ПАО СБЕРБАНК',
      ПлательщикБИК: '044525225',
      ПлательщикКорсчет: '30101810400000000225',
    };
    expect(parsed.documents[0]!.fields).toEqual({
      Номер: '17',
      Дата: '28.11.2026',
      Сумма: '123456.78',
      ...payerFields,
      ПолучательСчет: '40802810400000012345',
      Получатель: 'ООО "Ромашка"',
      ПолучательИНН: '7830002293',
      ПолучательКПП: '783001001',
      Получатель1: 'ООО "Ромашка"',
      ПолучательРасчСчет: '40802810400000012345',
      ПолучательБанк1: 'АО «ТБанк»',
      ПолучательБИК: '044525974',
      ВидОплаты: '01',
      Очередность: '5',
      НазначениеПлатежа: 'Выплата по договору № 12, id 3f2c1b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f. НДС не облагается',
      НазначениеПлатежа1: 'Выплата по договору № 12, id 3f2c1b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f. НДС не облагается',
    });
    // A sole proprietor has no KPP and this payee no bank name: those lines are left out, not written empty.
    expect(parsed.documents[1]!.fields).toEqual({
      Номер: '18',
      Дата: '29.11.2026',
      Сумма: '100.05',
      ...payerFields,
      ПолучательСчет: '40802810738000000017',
      Получатель: 'ИП Иванов Иван Иванович',
      ПолучательИНН: '500100732259',
      Получатель1: 'ИП Иванов Иван Иванович',
      ПолучательРасчСчет: '40802810738000000017',
      ПолучательБИК: '044525225',
      ВидОплаты: '01',
      Очередность: '5',
      НазначениеПлатежа: 'Выплата 9b2e7c4a-1f3d-4e8b-a6c5-7d9e0f1a2b3c. НДС не облагается',
      НазначениеПлатежа1: 'Выплата 9b2e7c4a-1f3d-4e8b-a6c5-7d9e0f1a2b3c. НДС не облагается',
    });
  });

  it('writes windows-1251 bytes with CRLF line ends, the first line and the end as the format has them', () => {
    const bytes = exportPaymentOrders(file());
    // "Ромашка" in windows-1251: one byte a letter, none of UTF-8's two-byte sequences.
    expect(bytes.includes(Buffer.from([0xd0, 0xee, 0xec, 0xe0, 0xf8, 0xea, 0xe0]))).toBe(true);
    expect(bytes.includes(Buffer.from('Ромашка', 'utf8'))).toBe(false);
    // "ё" and "№" are in windows-1251 (0xB8, 0xB9) and survive the trip.
    expect(bytes.includes(Buffer.from([0xb8]))).toBe(true);
    expect(bytes.includes(Buffer.from([0xb9]))).toBe(true);
    const text = iconv.decode(bytes, 'win1251');
    expect(text.startsWith('1CClientBankExchange\r\nВерсияФормата=1.03\r\n')).toBe(true);
    expect(text.endsWith('КонецДокумента\r\nКонецФайла\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect(text.match(/^СекцияДокумент=Платежное поручение$/gm)).toHaveLength(2);
  });

  it('writes amounts from kopecks with two decimals and a dot', () => {
    const amounts = [1, 5, 100, 10_000_000_00, 99].map((amountKopecks) => {
      const f = file();
      const bytes = exportPaymentOrders({ ...f, orders: [{ ...f.orders[0]!, amountKopecks }] });
      return parseExchangeFile(bytes).documents[0]!.fields['Сумма'];
    });
    expect(amounts).toEqual(['0.01', '0.05', '1.00', '10000000.00', '0.99']);
  });

  const refusal = (change: (f: PaymentOrdersFile) => PaymentOrdersFile): ExchangeFileError => {
    try {
      exportPaymentOrders(change(file()));
    } catch (e) {
      if (e instanceof ExchangeFileError) return e;
      throw e;
    }
    throw new Error('the file was written');
  };
  const withOrder = (f: PaymentOrdersFile, order: Partial<PaymentOrdersFile['orders'][number]>): PaymentOrdersFile => ({
    ...f,
    orders: [{ ...f.orders[0]!, ...order }, f.orders[1]!],
  });

  it('refuses a value with a line break rather than writing a line the bank reads as two', () => {
    for (const purpose of ['Выплата\r\nКонецДокумента', 'Выплата\nСумма=1000000.00', 'Выплата\tтаб', 'Выплата\u2028']) {
      const e = refusal((f) => withOrder(f, { purpose }));
      expect([e.code, e.field]).toEqual(['unsafe_value', 'orders.0.purpose']);
    }
    const e = refusal((f) => ({ ...f, payer: { ...f.payer, bank: 'ПАО\r\nСБЕРБАНК' } }));
    expect([e.code, e.field]).toEqual(['unsafe_value', 'payer.bank']);
  });

  it('refuses a character windows-1251 cannot encode rather than writing a "?" in its place', () => {
    // ✓ and é are not in windows-1251; U+FFFD is what its one undefined byte (0x98) decodes to, not a character of it.
    for (const purpose of ['Выплата ✓', 'Выплата café', 'Выплата \ufffd']) {
      const e = refusal((f) => withOrder(f, { purpose }));
      expect([e.code, e.field]).toEqual(['not_encodable', 'orders.0.purpose']);
    }
    expect(refusal((f) => ({ ...f, sender: 'Платформа 🚀' })).code).toBe('not_encodable');
    // In a name the bank-details check speaks first: the merchant's destination is what needs fixing.
    const e = refusal((f) => withOrder(f, { payee: { ...company, name: 'ООО Ромашка 🌼' } }));
    expect([e.code, e.field]).toEqual(['invalid_bank_details', 'orders.0.payee.name']);
  });

  it('refuses an amount that is not whole positive kopecks', () => {
    for (const amountKopecks of [0, -100, 100.5, Number.NaN, 2 ** 53]) {
      const e = refusal((f) => withOrder(f, { amountKopecks }));
      expect([e.code, e.field]).toEqual(['invalid_value', 'orders.0.amountKopecks']);
    }
  });

  it('refuses an order number outside 1..999999 or repeated in the file', () => {
    for (const number of [0, 1_000_000, 1.5]) expect(refusal((f) => withOrder(f, { number })).field).toBe('orders.0.number');
    const e = refusal((f) => ({ ...f, orders: [f.orders[0]!, { ...f.orders[1]!, number: 17 }] }));
    expect([e.code, e.field]).toEqual(['invalid_value', 'orders.1.number']);
  });

  it('refuses an empty or over-long purpose, an invalid date and a file without orders', () => {
    expect(refusal((f) => withOrder(f, { purpose: ' ' })).field).toBe('orders.0.purpose');
    expect(refusal((f) => withOrder(f, { purpose: 'я'.repeat(211) })).field).toBe('orders.0.purpose');
    expect(refusal((f) => withOrder(f, { date: new Date('not a date') })).field).toBe('orders.0.date');
    expect(refusal((f) => ({ ...f, orders: [] })).field).toBe('orders');
    expect(() => exportPaymentOrders(withOrder(file(), { purpose: 'я'.repeat(210) }))).not.toThrow();
  });

  it('refuses a payee or payer whose bank details fail their checks, naming the field', () => {
    const e = refusal((f) => withOrder(f, { payee: { ...company, account: '40802810400000012346' } }));
    expect([e.code, e.field]).toEqual(['invalid_bank_details', 'orders.0.payee.account']);
    expect(e.message).toMatch(/does not match the bank's BIK/);
    expect(refusal((f) => ({ ...f, payer: { ...f.payer, inn: '7707083894' } })).field).toBe('payer.inn');
  });
});
