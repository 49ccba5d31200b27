import iconv from 'iconv-lite';
import { ExchangeFileError } from './exchange-file-error';
import { parseExchangeFile } from './one-c-parse';
import { payoutIdsIn, statementLines } from './statement-lines';

const PLATFORM = '40702810938000012345';
const OTHER_OWN_ACCOUNT = '40702810538000054321';

// The platform account's statement as Sberbank's client writes one, by hand: our order No. 17 executed, order No. 18
// returned by the payee's bank (its purpose wrapped over two printed lines, the payout id split between them), a
// marketplace's payment to us naming no payout, and the bank's fee on a line that leaves our own account out.
const HEADER = [
  '1CClientBankExchange',
  'ВерсияФормата=1.03',
  'Кодировка=Windows',
  'Отправитель=СберБизнес',
  'Получатель=1С:Предприятие',
  'ДатаСоздания=02.12.2026',
  'ВремяСоздания=09:01:12',
  'ДатаНачала=30.11.2026',
  'ДатаКонца=01.12.2026',
  `РасчСчет=${PLATFORM}`,
];
const PLATFORM_BALANCES = [
  'СекцияРасчСчет',
  'ДатаНачала=30.11.2026',
  'ДатаКонца=01.12.2026',
  `РасчСчет=${PLATFORM}`,
  'НачальныйОстаток=1000000.00',
  'ВсегоПоступило=50100.05',
  'ВсегоСписано=123471.78',
  'КонечныйОстаток=926628.27',
  'КонецРасчСчет',
];
const PLATFORM_DOCUMENTS = [
  'СекцияДокумент=Платежное поручение',
  'Номер=17',
  'Дата=28.11.2026',
  'Сумма=123456.78',
  `ПлательщикСчет=${PLATFORM}`,
  'ДатаСписано=30.11.2026',
  'Плательщик=ИНН 7707083893 ООО «Платёжные ссылки»',
  'ПлательщикИНН=7707083893',
  'ПлательщикКПП=773601001',
  'Плательщик1=ООО «Платёжные ссылки»',
  `ПлательщикРасчСчет=${PLATFORM}`,
  'ПлательщикБанк1=ПАО СБЕРБАНК',
  'ПлательщикБИК=044525225',
  'ПлательщикКорсчет=30101810400000000225',
  'ПолучательСчет=40802810400000012345',
  'ДатаПоступило=',
  'Получатель=ИНН 7830002293 ООО "Ромашка"',
  'ПолучательИНН=7830002293',
  'ПолучательКПП=783001001',
  'Получатель1=ООО "Ромашка"',
  'ПолучательРасчСчет=40802810400000012345',
  'ПолучательБанк1=АО «ТБанк»',
  'ПолучательБИК=044525974',
  'ПолучательКорсчет=30101810145250000974',
  'ВидОплаты=01',
  'Очередность=5',
  'НазначениеПлатежа=Выплата по договору № 12, id 3F2C1B9E8D7A4C6B9E5F0A1B2C3D4E5F. НДС не облагается',
  'КонецДокумента',
  'СекцияДокумент=Платежное поручение',
  'Номер=5021',
  'Дата=01.12.2026',
  'Сумма=100.05',
  'ПлательщикСчет=30232810100000000004',
  'Плательщик=АО «ТБанк»',
  'ПлательщикИНН=7710140679',
  'ПлательщикБИК=044525974',
  `ПолучательСчет=${PLATFORM}`,
  'ДатаПоступило=01.12.2026',
  'Получатель1=ООО «Платёжные ссылки»',
  'ПолучательИНН=7707083893',
  'ПолучательБИК=044525225',
  'ВидОплаты=01',
  'Очередность=5',
  'НазначениеПлатежа1=Возврат по п/п № 18 от 28.11.2026: счет получателя закрыт. Выплата 9b2e7c4a-1f3d-4e8b-',
  'НазначениеПлатежа2=a6c5-7d9e0f1a2b3c. НДС не облагается',
  'КонецДокумента',
  'СекцияДокумент=Платежное поручение',
  'Номер=771',
  'Дата=30.11.2026',
  'Сумма=50000',
  'ПлательщикСчет=40702810900000098765',
  'Плательщик1=ООО «Маркетплейс»',
  'ПлательщикИНН=7830002293',
  'ПлательщикБИК=044525974',
  `ПолучательСчет=${PLATFORM}`,
  'ДатаПоступило=30.11.2026',
  'Получатель1=ООО «Платёжные ссылки»',
  'НазначениеПлатежа=Оплата по счету № 88 от 25.11.2026. В т.ч. НДС 20% 8333-33',
  'КонецДокумента',
  'СекцияДокумент=Банковский ордер',
  'Номер=90012',
  'Дата=30.11.2026',
  'Сумма=15,00',
  'ДатаСписано=30.11.2026',
  'Плательщик1=ООО «Платёжные ссылки»',
  'ПолучательСчет=70601810938002710203',
  'Получатель1=ПАО СБЕРБАНК',
  'ПолучательИНН=7707083893',
  'ПолучательБИК=044525225',
  'НазначениеПлатежа=Комиссия за перевод по п/п № 17 от 28.11.2026. Без НДС',
  'КонецДокумента',
];
// The company's other account, for a statement of both.
const OTHER_BALANCES = [
  'СекцияРасчСчет',
  'ДатаНачала=30.11.2026',
  'ДатаКонца=01.12.2026',
  `РасчСчет=${OTHER_OWN_ACCOUNT}`,
  'НачальныйОстаток=5000.00',
  'ВсегоПоступило=0.00',
  'ВсегоСписано=2000.00',
  'КонечныйОстаток=3000.00',
  'КонецРасчСчет',
];
const OTHER_DOCUMENTS = [
  'СекцияДокумент=Платежное поручение',
  'Номер=3',
  'Дата=30.11.2026',
  'Сумма=2000.00',
  `ПлательщикСчет=${OTHER_OWN_ACCOUNT}`,
  'ДатаСписано=30.11.2026',
  'Плательщик1=ООО «Платёжные ссылки»',
  'ПолучательСчет=40702810800000001111',
  'Получатель1=ООО «Канцтовары»',
  'НазначениеПлатежа=Оплата бумаги, выплата 0f0e0d0c-0b0a-4909-8807-060504030201 не относится. Без НДС',
  'КонецДокумента',
];
const STATEMENT = [...HEADER, ...PLATFORM_BALANCES, ...PLATFORM_DOCUMENTS, 'КонецФайла'];
const BOTH_ACCOUNTS = [
  ...HEADER,
  `РасчСчет=${OTHER_OWN_ACCOUNT}`,
  ...PLATFORM_BALANCES,
  ...OTHER_BALANCES,
  ...PLATFORM_DOCUMENTS,
  ...OTHER_DOCUMENTS,
  'КонецФайла',
];
const win1251 = (lines: readonly string[]): Buffer => iconv.encode(lines.join('\r\n') + '\r\n', 'win1251');
const statementBytes = (): Buffer => win1251(STATEMENT);

describe('statementLines', () => {
  it("reads a two-account statement's account sections", () => {
    const parsed = parseExchangeFile(win1251(BOTH_ACCOUNTS));
    expect(parsed.accounts).toEqual([
      {
        line: 12,
        fields: {
          ДатаНачала: '30.11.2026',
          ДатаКонца: '01.12.2026',
          РасчСчет: PLATFORM,
          НачальныйОстаток: '1000000.00',
          ВсегоПоступило: '50100.05',
          ВсегоСписано: '123471.78',
          КонечныйОстаток: '926628.27',
        },
      },
      {
        line: 21,
        fields: {
          ДатаНачала: '30.11.2026',
          ДатаКонца: '01.12.2026',
          РасчСчет: OTHER_OWN_ACCOUNT,
          НачальныйОстаток: '5000.00',
          ВсегоПоступило: '0.00',
          ВсегоСписано: '2000.00',
          КонечныйОстаток: '3000.00',
        },
      },
    ]);
    expect(parsed.documents.map((d) => d.kind)).toEqual([
      'Платежное поручение',
      'Платежное поручение',
      'Платежное поручение',
      'Банковский ордер',
      'Платежное поручение',
    ]);
  });

  it("yields exactly the platform account's operations: the executed order, the return, and the lines naming no payout", () => {
    expect(statementLines(parseExchangeFile(statementBytes()), PLATFORM)).toEqual([
      {
        direction: 'debit',
        amountKopecks: 12_345_678,
        date: '2026-11-30',
        number: '17',
        purpose: 'Выплата по договору № 12, id 3F2C1B9E8D7A4C6B9E5F0A1B2C3D4E5F. НДС не облагается',
        counterparty: { name: 'ООО "Ромашка"', inn: '7830002293', account: '40802810400000012345', bik: '044525974' },
        payoutIds: ['3f2c1b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f'],
      },
      {
        direction: 'credit',
        amountKopecks: 10_005,
        date: '2026-12-01',
        number: '5021',
        purpose: 'Возврат по п/п № 18 от 28.11.2026: счет получателя закрыт. Выплата 9b2e7c4a-1f3d-4e8b- a6c5-7d9e0f1a2b3c. НДС не облагается',
        counterparty: { name: 'АО «ТБанк»', inn: '7710140679', account: '30232810100000000004', bik: '044525974' },
        payoutIds: ['9b2e7c4a-1f3d-4e8b-a6c5-7d9e0f1a2b3c'],
      },
      {
        direction: 'credit',
        amountKopecks: 5_000_000,
        date: '2026-11-30',
        number: '771',
        purpose: 'Оплата по счету № 88 от 25.11.2026. В т.ч. НДС 20% 8333-33',
        counterparty: { name: 'ООО «Маркетплейс»', inn: '7830002293', account: '40702810900000098765', bik: '044525974' },
        payoutIds: [],
      },
      {
        direction: 'debit',
        amountKopecks: 1_500,
        date: '2026-11-30',
        number: '90012',
        purpose: 'Комиссия за перевод по п/п № 17 от 28.11.2026. Без НДС',
        counterparty: { name: 'ПАО СБЕРБАНК', inn: '7707083893', account: '70601810938002710203', bik: '044525225' },
        payoutIds: [],
      },
    ]);
  });

  it("in a statement of two accounts, yields each account's own lines and leaves out a line naming neither", () => {
    const parsed = parseExchangeFile(win1251(BOTH_ACCOUNTS));
    const summary = (account: string): unknown[] => statementLines(parsed, account).map((l) => [l.direction, l.number, l.payoutIds]);
    expect(summary(OTHER_OWN_ACCOUNT)).toEqual([['debit', '3', ['0f0e0d0c-0b0a-4909-8807-060504030201']]]);
    // The fee's line leaves the paying account out: it could be either account's, so it is neither's.
    expect(summary(PLATFORM)).toEqual([
      ['debit', '17', ['3f2c1b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f']],
      ['credit', '5021', ['9b2e7c4a-1f3d-4e8b-a6c5-7d9e0f1a2b3c']],
      ['credit', '771', []],
    ]);
  });

  it('yields nothing for an account the statement does not hold', () => {
    expect(statementLines(parseExchangeFile(statementBytes()), '40702810400000000001')).toEqual([]);
  });

  it('refuses a document of the account whose amount or date cannot be read, naming its line', () => {
    for (const [from, to] of [
      ['Сумма=123456.78', 'Сумма=123 456,78'],
      ['Сумма=123456.78', 'Сумма=-5.00'],
      ['ДатаСписано=30.11.2026', 'ДатаСписано=31.11.2026'],
    ] as const) {
      const bytes = iconv.encode(STATEMENT.map((l) => (l === from ? to : l)).join('\r\n'), 'win1251');
      const parsed = parseExchangeFile(bytes);
      let error: unknown;
      try {
        statementLines(parsed, PLATFORM);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ExchangeFileError);
      expect(error).toMatchObject({ code: 'invalid_value', line: 20 });
    }
  });
});

describe('payoutIdsIn', () => {
  it('finds UUIDs with or without hyphens in any case, each once, in the canonical form', () => {
    expect(payoutIdsIn('a 3F2C1B9E-8D7A-4C6B-9E5F-0A1B2C3D4E5F, b 3f2c1b9e8d7a4c6b9e5f0a1b2c3d4e5f; c 9b2e7c4a1f3d4e8ba6c57d9e0f1a2b3c')).toEqual([
      '3f2c1b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f',
      '9b2e7c4a-1f3d-4e8b-a6c5-7d9e0f1a2b3c',
    ]);
  });

  it('finds nothing in a longer run of hex digits or a shorter one', () => {
    expect(payoutIdsIn('3f2c1b9e8d7a4c6b9e5f0a1b2c3d4e5fa 3f2c1b9e8d7a4c6b9e5f0a1b2c3d4e5 order 123')).toEqual([]);
  });
});
