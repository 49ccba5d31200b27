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
    currency: link.currency,
    amount: formatKopecks(link.amount),
    fee_bps: link.feeBps,
    fee_percent_bp: link.feePercentBp,
    fee_payer: link.feePayer,
    payer_amount: formatKopecks(link.payerAmount),
    merchant_credit: formatKopecks(link.merchantCredit),
    platform_revenue: formatKopecks(link.platformRevenue),
    status: link.status,
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
  };
}

export interface LinkPage {
  items: LinkRecord[];
  hasMore: boolean;
}

/**
 * A page of the list as `links.list` answers it: the links once, `payment_links` written last (the gateway
 * adds the `payments` alias when it answers over HTTP, so a full page crosses the bus once).
 */
export function toPaymentLinkPage(page: LinkPage, publicBaseUrl: string): PaymentLinkPage {
  const last = page.items[page.items.length - 1];
  return {
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null,
    payment_links: page.items.map((l) => toPaymentLink(l, publicBaseUrl)),
  };
}
