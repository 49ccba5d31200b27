import type { PaymentLinkList, PaymentLinkPage } from '@pl/contracts';

const PAGE_START = Buffer.from('{"has_more":', 'utf8');
const LINKS_MEMBER = Buffer.from(',"payment_links":', 'utf8');
const CLOSING_BRACE = 0x7d;
const LIST_START = Buffer.from('{"payment_links":', 'utf8');
const PAYMENTS_MEMBER = Buffer.from(',"payments":', 'utf8');
const COMMA = Buffer.from(',', 'utf8');
const LIST_END = Buffer.from('}', 'utf8');

/**
 * The list object of the HTTP API from the JSON of a `links.list` reply: the page plus `payments`, the
 * interface's alias of `payment_links`, added here so that a full page crosses the bus once (twice would
 * not fit in a NATS message).
 *
 * The links service writes `payment_links` last (`paymentLinkPage`), so the array's bytes are copied twice as
 * they are, without parsing 100 links only to serialize them again. The first `,"payment_links":` is that
 * member: before it stand only a boolean and the cursor, and no JSON string holds a quote right after a comma
 * (its quotes are escaped). A page in any other layout (a links service of an older release, during a
 * rolling update) is parsed and written anew.
 */
export function withPaymentsAlias(pageJson: Buffer): Buffer {
  const member = pageJson.indexOf(LINKS_MEMBER);
  const laidOut = member > 0 && pageJson.subarray(0, PAGE_START.length).equals(PAGE_START) && pageJson[pageJson.length - 1] === CLOSING_BRACE;
  if (laidOut) {
    const head = pageJson.subarray(1, member);
    const links = pageJson.subarray(member + LINKS_MEMBER.length, pageJson.length - 1);
    return Buffer.concat([LIST_START, links, PAYMENTS_MEMBER, links, COMMA, head, LIST_END]);
  }
  // The links service keeps the contract of its replies, as for every reply the gateway passes on untouched.
  const page = JSON.parse(pageJson.toString('utf8')) as PaymentLinkPage;
  const list: PaymentLinkList = {
    payment_links: page.payment_links,
    payments: page.payment_links,
    has_more: page.has_more,
    next_cursor: page.next_cursor,
  };
  return Buffer.from(JSON.stringify(list), 'utf8');
}
