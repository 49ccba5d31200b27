import { z } from 'zod';
import { cursorBigint, cursorCodec } from '@pl/contracts';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';
import { PAGE_HELP, pageFlags, pageOf, pageOptions, positionOf } from '../paging';
import { shopOutput } from './shop-settings';

/** Opaque: base64url of `v1:<id>`, the last shop of the page (shops are listed by id, newest first). */
const shopCursor = cursorCodec<{ id: bigint }>({ id: cursorBigint(19) });

const flags = z.strictObject({ ...pageFlags, merchant: uuidFlag('a merchant').optional() });

/** `shop:list [--merchant ID] [--limit N] [--cursor C]` -> `{ "shops": [...], "has_more", "next_cursor" }`, newest first. */
export const shopList: Command = {
  summary: "list shops, every merchant's or one merchant's, newest first (paged)",
  help: `Usage: shop:list [--merchant ID] [--limit N] [--cursor C]

Lists shops, newest first: every merchant's, or only those of --merchant.

  --merchant ID the owner (a merchant id, UUID)
${PAGE_HELP}

Prints {"shops": [shop, ...], "has_more", "next_cursor"}, each shop as shop:show prints it (no secrets).`,
  async run(args, ctx) {
    const f = parseFlags(args, { ...pageOptions, merchant: { type: 'string' } }, flags);
    const beforeId = positionOf(shopCursor, f.cursor)?.id ?? null;
    const { shops } = ctx.shops();
    const rows =
      f.merchant === undefined
        ? await shops.listAllShops({ beforeId, limit: f.limit + 1 })
        : await shops.listShops({ merchantId: f.merchant, beforeId, limit: f.limit + 1 });
    return pageOf('shops', rows, f.limit, shopOutput, (last) => shopCursor.encode({ id: BigInt(last.id) }));
  },
};
