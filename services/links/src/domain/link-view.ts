import { formatMoscow, formatMoscowOrNull } from '@pl/contracts';
import type { PaymentLink } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { encodeCursor } from './cursor';
import type { LinkRecord } from './link';
import type { ListedLink } from './ports';

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
    failure_reason: link.failureReason,
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

/** A link as the store lists it, written here instead (the same bytes: test/link-json.test.ts). */
export const listedLink = (link: LinkRecord, publicBaseUrl: string): ListedLink => ({
  id: link.id,
  status: link.status,
  expiresAt: link.expiresAt,
  createdAtMicros: link.createdAtMicros,
  json: JSON.stringify(toPaymentLink(link, publicBaseUrl)),
});

export interface LinkPage {
  items: ListedLink[];
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
 * A page of the list as `links.list` answers it, as JSON text (a `PaymentLinkPage`): the links once, as the store
 * wrote them, `payment_links` last (the gateway adds the `payments` alias when it answers over HTTP, so a full page
 * crosses the bus once). It keeps the links that fit {@link LINK_PAGE_BYTES_MAX} (always at least one, so paging
 * never stalls).
 */
export function toPaymentLinkPageJson(page: LinkPage): string {
  const links = fittingPrefix(page.items);
  const hasMore = page.hasMore || links.length < page.items.length;
  const last = links[links.length - 1];
  const cursor = hasMore && last ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null;
  return `{"has_more":${hasMore},"next_cursor":${JSON.stringify(cursor)},"payment_links":[${links.map((l) => l.json).join(',')}]}`;
}

/** The links that fit, measured exactly (always at least one, so paging never stalls). */
function fittingPrefix(all: ListedLink[]): ListedLink[] {
  let bytes = 0;
  for (const [i, link] of all.entries()) {
    bytes += Buffer.byteLength(link.json, 'utf8') + 1;
    if (i > 0 && bytes > LINK_PAGE_BYTES_MAX) return all.slice(0, i);
  }
  return all;
}
