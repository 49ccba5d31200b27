import { z } from 'zod';
import { notFound } from '@pl/errors';
import { LINKS_OWN_MODE, toPaymentLink } from '@pl/links';
import type { Command } from '../command';
import { loadAdminLinkConfig } from '../config';
import { parseFlags, uuidFlag } from '../flags';

const flags = z.strictObject({ link: uuidFlag('a payment link') });

/** `link:show --link ID` -> the payment link as the API shows it, plus its merchant. */
export const linkShow: Command = {
  summary: 'show one payment link',
  help: `Usage: link:show --link ID

  --link ID   the payment link's id (UUID)

Prints the payment link as the merchants' API shows it (amounts in roubles, dates in Moscow time, the
checkout URL from PUBLIC_BASE_URL, "livemode": false for a test link) plus "merchant_id". Links of both
modes are shown.`,
  async run(args, ctx) {
    const f = parseFlags(args, { link: { type: 'string' } }, flags);
    const { PUBLIC_BASE_URL } = loadAdminLinkConfig(ctx.env);
    // An operator looks at any link, whichever mode it lives in; the view says which.
    const link = await ctx.links().findById(f.link.toLowerCase(), LINKS_OWN_MODE);
    if (!link) throw notFound('Payment link not found');
    return { ...toPaymentLink(link, PUBLIC_BASE_URL), merchant_id: link.merchantId };
  },
};
