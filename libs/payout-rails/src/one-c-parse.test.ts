import iconv from 'iconv-lite';
import { ExchangeFileError } from './exchange-file-error';
import { parseExchangeFile } from './one-c-parse';

const win1251 = (lines: readonly string[], eol = '\r\n'): Buffer => iconv.encode(lines.join(eol) + eol, 'win1251');

const HEADER = [
  '1CClientBankExchange',
  'ВерсияФормата=1.03',
  'Кодировка=Windows',
  'Отправитель=Сбербанк Бизнес Онлайн',
  'РасчСчет=40702810938000012345',
];
const DOCUMENT = ['СекцияДокумент=Платежное поручение', 'Номер=17', 'Сумма=100.00', 'Плательщик1=ООО «Ромашка»', 'КонецДокумента'];

const refusal = (bytes: Buffer): ExchangeFileError => {
  try {
    parseExchangeFile(bytes);
  } catch (e) {
    if (e instanceof ExchangeFileError) return e;
    throw e;
  }
  throw new Error('the file was read');
};

describe('parseExchangeFile', () => {
  it('reads LF line ends, blank lines and spaces around "=" as well as CRLF', () => {
    const lf = parseExchangeFile(win1251([...HEADER, '', 'ДатаНачала = 28.11.2026 ', ...DOCUMENT, 'КонецФайла'], '\n'));
    const crlf = parseExchangeFile(win1251([...HEADER, '', 'ДатаНачала=28.11.2026', ...DOCUMENT, 'КонецФайла']));
    expect(lf).toEqual(crlf);
    expect(lf.header['ДатаНачала']).toBe('28.11.2026');
    expect(lf.documents).toEqual([{ kind: 'Платежное поручение', line: 8, fields: { Номер: '17', Сумма: '100.00', Плательщик1: 'ООО «Ромашка»' } }]);
  });

  it('keeps "=" inside a value and the first of a repeated key', () => {
    const parsed = parseExchangeFile(
      win1251([
        ...HEADER,
        'РасчСчет=40702810400000000001',
        'СекцияДокумент=Платежное поручение',
        'НазначениеПлатежа=a=b',
        'КонецДокумента',
        'КонецФайла',
      ]),
    );
    expect(parsed.header['РасчСчет']).toBe('40702810938000012345');
    expect(parsed.documents[0]!.fields['НазначениеПлатежа']).toBe('a=b');
  });

  it('reads a file that says Кодировка=DOS in code page 866', () => {
    // Code page 866 has no «»: a DOS file quotes with '"'.
    const lines = [
      '1CClientBankExchange',
      'Кодировка=DOS',
      'СекцияДокумент=Платежное поручение',
      'Плательщик1=ООО "Ромашка"',
      'КонецДокумента',
      'КонецФайла',
    ];
    const parsed = parseExchangeFile(iconv.encode(lines.join('\r\n'), 'cp866'));
    expect(parsed.header['Кодировка']).toBe('DOS');
    expect(parsed.documents[0]!.fields['Плательщик1']).toBe('ООО "Ромашка"');
  });

  it('ignores what follows КонецФайла', () => {
    const parsed = parseExchangeFile(win1251([...HEADER, ...DOCUMENT, 'КонецФайла', 'подпись: 0A1B2C']));
    expect(parsed.documents).toHaveLength(1);
  });

  it('refuses a file whose first line is not 1CClientBankExchange', () => {
    for (const bytes of [win1251(['ВерсияФормата=1.03', 'КонецФайла']), Buffer.alloc(0), Buffer.from('%PDF-1.7\n')]) {
      const e = refusal(bytes);
      expect([e.code, e.line]).toEqual(['not_exchange_file', 1]);
    }
  });

  it('refuses a document not closed before the next one opens, with the line it opened on', () => {
    const e = refusal(win1251([...HEADER, 'СекцияДокумент=Платежное поручение', 'Номер=1', ...DOCUMENT, 'КонецФайла']));
    expect([e.code, e.line]).toEqual(['unterminated_section', 6]);
    expect(e.message).toBe('СекцияДокумент opened on line 6 has no КонецДокумента before line 8');
  });

  it('refuses a section still open at КонецФайла or at the end of the bytes', () => {
    expect(refusal(win1251([...HEADER, 'СекцияРасчСчет', 'РасчСчет=40702810938000012345', 'КонецФайла']))).toMatchObject({
      code: 'unterminated_section',
      line: 6,
    });
    expect(refusal(win1251([...HEADER, 'СекцияДокумент=Платежное поручение', 'Номер=1']))).toMatchObject({ code: 'unterminated_section', line: 6 });
  });

  it('refuses a file cut short between two documents (no КонецФайла), since operations may be missing', () => {
    expect(refusal(win1251([...HEADER, ...DOCUMENT]))).toMatchObject({ code: 'unterminated_section' });
  });

  it('refuses a closing line with nothing open, or the wrong section open, and a line without "="', () => {
    expect(refusal(win1251([...HEADER, 'КонецДокумента', 'КонецФайла']))).toMatchObject({ code: 'malformed_line', line: 6 });
    expect(refusal(win1251([...HEADER, 'СекцияРасчСчет', 'КонецДокумента', 'КонецФайла']))).toMatchObject({ code: 'malformed_line', line: 7 });
    expect(refusal(win1251([...HEADER, 'СекцияДокумент=Платежное поручение', 'Номер 17', 'КонецДокумента', 'КонецФайла']))).toMatchObject({
      code: 'malformed_line',
      line: 7,
    });
  });

  it('keeps a key named __proto__ as data', () => {
    const parsed = parseExchangeFile(win1251([...HEADER, '__proto__=x', 'КонецФайла']));
    expect(Object.getPrototypeOf(parsed.header)).toBe(Object.prototype);
    expect(Object.keys(parsed.header)).toContain('__proto__');
  });
});
