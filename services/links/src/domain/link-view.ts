import { formatMoscow, formatMoscowOrNull } from '@pl/contracts';
import type { PaymentLink, PaymentLinkPage } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { encodeCursor } from './cursor';
import type { LinkRecord } from './link';

/** The buyer's page for a link; `publicBaseUrl` has no trailing slash. */
const checkoutUrl = (publicBaseUrl: string, id: string): string => `${publicBaseUrl}/p/${id}`;

/** The payment-link object of the interface: every field, null where unset, plus the URL aliases. */
export function toPaymentLink(link: LinkRecord, publicBaseUrl: string): PaymentLink {
  const url = checkoutUrl(publicBaseUrl, link.id);
  return {
    id: link.id,
    shop_id: link.shopId,
    order_id: link.orderId,
    description: link.description,
    return_url: link.returnUrl,
    currency: link.currency,
    amount: formatKopecks(link.amount),
    fee_bps: link.feeBps,
    fee_percent_bp: link.feePercentBp,
    fee_payer: link.feePayer,
    payer_amount: formatKopecks(link.payerAmount),
    merchant_credit: formatKopecks(link.merchantCredit),
    platform_revenue: formatKopecks(link.platformRevenue),
    status: link.status,
    amount_refunded: formatKopecks(link.amountRefunded),
    gateway_provider: link.gatewayProvider,
    gateway_payment_id: link.gatewayPaymentId,
    to_currency: link.toCurrency,
    network: link.network,
    deposit_address: link.depositAddress,
    payer_currency: link.payerCurrency,
    payer_crypto_amount: link.payerCryptoAmount,
    qr: link.qr,
    checkout_url: url,
    pay_url: url,
    paymentUrl: url,
    expires_at: formatMoscow(link.expiresAt),
    paid_at: formatMoscowOrNull(link.paidAt),
    created_at: formatMoscow(link.createdAt),
    updated_at: formatMoscow(link.updatedAt),
    livemode: link.livemode,
  };
}

export interface LinkPage {
  items: LinkRecord[];
  hasMore: boolean;
}

/**
 * The bytes of links one page may carry. A page travels as one NATS message (1 MiB by default), and a link at its
 * longest (order_id, description and a 2048-character return_url in 4-byte characters) is about 18 KB, so 100 of
 * them would not fit: such a page stops early, with `has_more`, and the cursor goes on from its last link. 100 links
 * whose order_id and description are at their longest (no return_url) still fit whole.
 */
export const LINK_PAGE_BYTES_MAX = 768 * 1024;

/**
 * A page of the list as `links.list` answers it: the links once, `payment_links` written last (the gateway
 * adds the `payments` alias when it answers over HTTP, so a full page crosses the bus once). It keeps the links
 * that fit {@link LINK_PAGE_BYTES_MAX} (always at least one, so paging never stalls).
 */
export function toPaymentLinkPage(page: LinkPage, publicBaseUrl: string): PaymentLinkPage {
  const all = page.items.map((record) => toPaymentLink(record, publicBaseUrl));
  const links = fitsWhole(all) ? all : fittingPrefix(all);
  const hasMore = page.hasMore || links.length < page.items.length;
  const last = page.items[links.length - 1];
  return {
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null,
    payment_links: links,
  };
}

/** Room for a link's keys, numbers and punctuation in its JSON: under 1 KB today, with margin. */
const LINK_FIELDS_BYTES_MAX = 4096;
/** The most bytes one UTF-16 code unit of a string can take in JSON: an escape (`\u001f`). */
const STRING_CHAR_BYTES_MAX = 6;

/** An upper bound of a link's JSON bytes that needs no serializing (its fields are strings, numbers and nulls). */
function jsonBytesAtMost(link: PaymentLink): number {
  let bytes = LINK_FIELDS_BYTES_MAX;
  for (const value of Object.values(link)) if (typeof value === 'string') bytes += STRING_CHAR_BYTES_MAX * value.length;
  return bytes;
}

/** Whether the page surely fits: true for every page of ordinary links, so they are serialized once, for the reply. */
const fitsWhole = (links: PaymentLink[]): boolean => links.reduce((bytes, link) => bytes + jsonBytesAtMost(link), 0) <= LINK_PAGE_BYTES_MAX;

/** The links that fit, measured exactly (always at least one, so paging never stalls). */
function fittingPrefix(all: PaymentLink[]): PaymentLink[] {
  const links: PaymentLink[] = [];
  let bytes = 0;
  for (const link of all) {
    bytes += Buffer.byteLength(JSON.stringify(link));
    if (links.length > 0 && bytes > LINK_PAGE_BYTES_MAX) break;
    links.push(link);
  }
  return links;
}
