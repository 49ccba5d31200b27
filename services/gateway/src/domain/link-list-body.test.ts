import { withPaymentsAlias } from './link-list-body';

const link = (id: string, description: string) => ({ id, order_id: 'o-1', description, status: 'pending' });
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');
const read = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));

describe('withPaymentsAlias', () => {
  // Texts a merchant may write that look like the member the splice looks for.
  const tricky = ['x,"payment_links":[1]}', '\\",\\"payment_links\\":', 'Чайная 🍵 "}', '\u0001\n'];

  it('adds payments equal to payment_links, in the order the decisions show, to a page as links writes it', () => {
    const links = tricky.map((d, i) => link(`id-${i}`, d));
    const body = withPaymentsAlias(json({ has_more: true, next_cursor: 'djE6MTIz', payment_links: links }));
    expect(body.toString('utf8')).toBe(JSON.stringify({ payment_links: links, payments: links, has_more: true, next_cursor: 'djE6MTIz' }));
  });

  it('handles an empty last page', () => {
    expect(read(withPaymentsAlias(json({ has_more: false, next_cursor: null, payment_links: [] })))).toEqual({
      payment_links: [],
      payments: [],
      has_more: false,
      next_cursor: null,
    });
  });

  it('parses a page in another layout (an older links service carrying payments itself)', () => {
    const links = [link('a', tricky[0]!)];
    const older = json({ payment_links: links, payments: links, has_more: false, next_cursor: null });
    expect(read(withPaymentsAlias(older))).toEqual({ payment_links: links, payments: links, has_more: false, next_cursor: null });
  });
});
