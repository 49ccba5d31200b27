import { z } from 'zod';
import { DELIVERY_ATTEMPTS_SHOWN, deliveryStatus, mode } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { LINKS_OWN_MODE } from '@pl/links';
import { decodeDeliveryCursor, encodeDeliveryCursor, toWebhookDeliveryList } from '@pl/notifier';
import type { Command } from '../command';
import { flagsInvalid, idFlag, parseFlags, uuidFlag } from '../flags';
import { PAGE_HELP, pageFlags, pageOptions, positionOf } from '../paging';

const flags = z.strictObject({
  ...pageFlags,
  link: uuidFlag('a payment link').optional(),
  shop: idFlag.optional(),
  status: deliveryStatus.optional(),
  mode: mode.optional(),
});

/** The notifier's own cursor, so a page printed here continues as the merchants' delivery log would. */
const deliveryCursor = { encode: (p: { seq: bigint }) => encodeDeliveryCursor(p.seq), decode: (t: string) => ({ seq: decodeDeliveryCursor(t) }) };

/**
 * `deliveries:list (--link ID | --shop ID) [--status S] [--mode M] [--limit N] [--cursor C]` -> the webhook
 * delivery log, newest first, as the merchants' API shows it. The log is kept by merchant, so the link or shop
 * names whose. Both modes unless --mode names one: an operator is not confined to a merchant's world.
 */
export const deliveriesList: Command = {
  summary: "list a link's or a shop's webhook deliveries, newest first (paged)",
  help: `Usage: deliveries:list (--link ID | --shop ID) [--status S] [--mode M] [--limit N] [--cursor C]

Lists webhook deliveries with their latest attempts, newest first. Give --link, --shop or both.

  --link ID     one payment link's deliveries (UUID)
  --shop ID     one shop's deliveries (test webhooks included)
  --status S    pending | succeeded | failed
  --mode M      live | test: only that mode's deliveries (default: both; each says its "livemode")
${PAGE_HELP}

Prints {"deliveries": [...], "has_more", "next_cursor"}, as GET /api/v1/webhook-deliveries does.`,
  async run(args, ctx) {
    const f = parseFlags(
      args,
      { ...pageOptions, link: { type: 'string' }, shop: { type: 'string' }, status: { type: 'string' }, mode: { type: 'string' } },
      flags,
    );
    if (f.link === undefined && f.shop === undefined) {
      throw flagsInvalid([{ field: 'link', code: 'invalid_flags', message: 'give --link or --shop (or both)' }]);
    }
    const beforeSeq = positionOf(deliveryCursor, f.cursor)?.seq ?? null;
    const linkId = f.link?.toLowerCase() ?? null;
    let merchantId: string;
    if (f.shop !== undefined) {
      const shop = await ctx.shops().shops.getShop(f.shop);
      if (!shop) throw notFound('Shop not found');
      merchantId = shop.merchantId;
    } else {
      const link = await ctx.links().findById(linkId ?? '', LINKS_OWN_MODE);
      if (!link) throw notFound('Payment link not found');
      merchantId = link.merchantId;
    }
    const page = await ctx.deliveries().list({
      mode: f.mode ?? null,
      merchantId,
      shopId: f.shop ?? null,
      paymentLinkId: linkId,
      status: f.status ?? null,
      beforeSeq,
      limit: f.limit,
      attemptsShown: DELIVERY_ATTEMPTS_SHOWN,
    });
    return toWebhookDeliveryList(page);
  },
};
