import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { STATEMENT_COLUMNS, statementCsv } from './statement-csv';

// Bytes, not text(): a decoder would drop the byte-order mark under test.
const csvOf = async (rows: Record<string, unknown>[]): Promise<string> => (await buffer(Readable.from(rows).pipe(statementCsv()))).toString('latin1');

describe('statementCsv', () => {
  it('quotes a field holding a comma, a quote or a line break and doubles its quotes (RFC 4180)', async () => {
    const row = Object.fromEntries(STATEMENT_COLUMNS.map((c) => [c, c]));
    const out = await csvOf([{ ...row, id: 'a,b', type: 'say "hi"', amount: 'two\r\nlines', refund_id: null }]);
    expect(out).toBe(
      '\xef\xbb\xbfid,shop_id,type,amount,fee,net,balance_after,payment_link_id,refund_id,created_at\r\n' +
        '"a,b",shop_id,"say ""hi""","two\r\nlines",fee,net,balance_after,payment_link_id,,created_at\r\n',
    );
  });

  it('keeps to the columns in their order, whatever else a row holds', async () => {
    const out = await csvOf([{ created_at: 'z', id: 'i', extra: 'never' }]);
    expect(out.split('\r\n')[1]).toBe('i,,,,,,,,,z');
  });
});
