import { ATTEMPT_ERROR_MAX_LENGTH, cursorBigint, cursorCodec, DELIVERY_ATTEMPTS_SHOWN, formatMoscow } from '@pl/contracts';
import type { Identity, ListDeliveriesCommand, MerchantIdentity, WebhookDelivery, WebhookDeliveryList } from '@pl/contracts';
import { forbidden, notFound } from '@pl/errors';
import type { DeliveryRecord, DeliveryStore, ListPage, ShopDirectory } from './delivery';
import { assertFiltersVisible, mayRead } from './list-filters';

/** Opaque to clients: base64url of `v1:<seq>`, the position in the log's (seq desc) order. */
const deliveryCursor = cursorCodec<{ seq: bigint }>({ seq: cursorBigint(19) });

export const encodeDeliveryCursor = (seq: bigint): string => deliveryCursor.encode({ seq });
export const decodeDeliveryCursor = (text: string): bigint => deliveryCursor.decode(text).seq;

/**
 * An attempt's error as merchants read it: printable ASCII, at most {@link ATTEMPT_ERROR_MAX_LENGTH} characters.
 * The notifier writes these itself (short English phrases and system error codes), so nothing is lost; the rule
 * keeps a full page of deliveries within one NATS message whatever an error might hold.
 */
export const attemptErrorText = (error: string | null): string | null =>
  error === null ? null : error.replace(/[^\x20-\x7e]/gu, '?').slice(0, ATTEMPT_ERROR_MAX_LENGTH);

/**
 * The delivery as merchants read it: the newest {@link DELIVERY_ATTEMPTS_SHOWN} attempts of every series, oldest
 * first, and how many older ones are left out.
 */
export const toWebhookDelivery = (d: DeliveryRecord): WebhookDelivery => {
  const shown = d.attempts.slice(-DELIVERY_ATTEMPTS_SHOWN);
  return {
    id: d.id,
    livemode: d.livemode,
    webhook_id: d.webhookId,
    payment_link_id: d.paymentLinkId,
    shop_id: d.shopId,
    event: d.event,
    status: d.status,
    attempts: shown.map((a) => ({
      attempt: a.attempt,
      at: formatMoscow(a.at),
      status_code: a.statusCode,
      error: attemptErrorText(a.error),
      duration_ms: a.durationMs,
    })),
    attempts_omitted: d.attemptsOmitted + d.attempts.length - shown.length,
  };
};

export function merchantOnly(identity: Identity): MerchantIdentity {
  if (identity.kind !== 'merchant') throw forbidden('The delivery log is for merchants');
  return identity;
}

/**
 * The caller's deliveries of its own mode, newest first, optionally of one link, one shop and one status. A link or
 * shop a filter names is judged as every list judges it ({@link assertFiltersVisible}): unknown (or a link of the
 * other mode) 404, another merchant's 403, with or without deliveries.
 */
export async function listDeliveries(
  store: DeliveryStore,
  shops: ShopDirectory,
  identity: Identity,
  cmd: ListDeliveriesCommand,
): Promise<WebhookDeliveryList> {
  const merchant = merchantOnly(identity);
  const beforeSeq = cmd.cursor === null ? null : decodeDeliveryCursor(cmd.cursor);
  await assertFiltersVisible(store, shops, merchant, cmd);
  const page = await store.list({
    mode: merchant.mode,
    merchantId: merchant.merchant_id,
    shopId: cmd.shop_id ?? merchant.shop_id ?? null,
    paymentLinkId: cmd.payment_link_id,
    status: cmd.status,
    beforeSeq,
    limit: cmd.limit,
    attemptsShown: DELIVERY_ATTEMPTS_SHOWN,
  });
  return toWebhookDeliveryList(page);
}

/** A page of the store as merchants (and operators) read it: the cursor names the last delivery shown. */
export function toWebhookDeliveryList(page: ListPage): WebhookDeliveryList {
  const last = page.items[page.items.length - 1];
  return {
    deliveries: page.items.map(toWebhookDelivery),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? encodeDeliveryCursor(last.seq) : null,
  };
}

/**
 * Starts a new series of up to 8 attempts with the same webhook id. A delivery of the other mode is not found
 * (before ownership is asked, as for any object of the other mode); another merchant's delivery is forbidden.
 */
export async function resendDelivery(store: DeliveryStore, identity: Identity, id: string): Promise<WebhookDelivery> {
  const merchant = merchantOnly(identity);
  const found = await store.findById(merchant.mode, id, DELIVERY_ATTEMPTS_SHOWN);
  if (!found) throw notFound('Webhook delivery not found');
  if (!mayRead(merchant, found)) throw forbidden('Webhook delivery belongs to another merchant');
  await store.restartSeries(merchant.mode, id);
  const after = await store.findById(merchant.mode, id, DELIVERY_ATTEMPTS_SHOWN);
  if (!after) throw notFound('Webhook delivery not found');
  return toWebhookDelivery(after);
}
