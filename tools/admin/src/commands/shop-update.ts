import { z } from 'zod';
import { CRYPTO_NETWORKS, EVENT_TYPES, type CryptoNetwork, type EventType } from '@pl/contracts';
import { updateShop } from '@pl/shops';
import type { Command } from '../command';
import { checkFlags, idFlag, readFlags } from '../flags';
import { withSecret } from '../secrets';
import { SHOP_SETTINGS_HELP, shopOutput, shopSettingFlags, shopSettingOptions, WEBHOOK_SECRET } from './shop-settings';

const flags = z.strictObject({
  ...shopSettingFlags,
  shop: idFlag,
  'webhook-events': z.string().optional(),
  sbp: z.enum(['on', 'off']).optional(),
  'crypto-networks': z.string().optional(),
});

/** An empty string clears an optional setting: `--webhook-url ''` removes the webhook. */
const orClear = (value: string | undefined): string | null | undefined => (value === '' ? null : value);

/**
 * `--webhook-events a,b` as a list; an empty string subscribes to nothing. The types themselves are checked by the
 * shops service's rule (known types, no repeats), so the CLI and the merchant API refuse the same lists.
 */
const eventList = (value: string | undefined): string[] | undefined => (value === undefined ? undefined : value === '' ? [] : value.split(','));

/** `--sbp` and `--crypto-networks` as a methods patch: a method left out stays as it is; none given, no patch. */
function methodsPatch(sbp: 'on' | 'off' | undefined, networks: string | undefined) {
  if (sbp === undefined && networks === undefined) return undefined;
  return {
    ...(sbp === undefined ? {} : { sbp: sbp === 'on' }),
    // Unchecked here on purpose, as the event types are: updateShop answers an unknown network as validation_failed.
    ...(networks === undefined ? {} : { crypto_networks: eventList(networks) as CryptoNetwork[] }),
  };
}

/** `shop:update --shop ID [settings]` -> the shop after the change, secrets left out. */
export const shopUpdate: Command = {
  summary: "change a shop's settings (status, rates, webhook)",
  help: `Usage: shop:update --shop ID [settings]

Changes only the settings given. An empty value clears an optional one: --webhook-url '' removes the
webhook, --webhook-secret '' the secret (no warning: nothing secret is on the command line).

  --shop ID                     the shop's id
${SHOP_SETTINGS_HELP}
  --webhook-events a,b          the event types sent to the webhook address ('' for none; default payment.succeeded):
                                ${EVENT_TYPES.join(', ')}
  --sbp on|off                  whether the shop takes SBP
  --crypto-networks a,b         the crypto networks the shop takes ('' for none): ${CRYPTO_NETWORKS.join(', ')}
                                (at least one method must stay on)

Prints the shop after the change: every setting (with "webhook_events" and "payment_methods") and "has_webhook_secret", never the secret.`,
  async run(args, ctx, io) {
    const values = readFlags(args, {
      ...shopSettingOptions,
      shop: { type: 'string' },
      'webhook-events': { type: 'string' },
      sbp: { type: 'string' },
      'crypto-networks': { type: 'string' },
    });
    const f = checkFlags(await withSecret(values, WEBHOOK_SECRET, ctx.env, io), flags);
    const shop = await updateShop(ctx.shops(), f.shop, {
      name: f.name,
      status: f.status,
      fee_payer: f['fee-payer'],
      crypto_bps: f['crypto-bps'],
      sbp_bps: f['sbp-bps'],
      webhook_url: orClear(f['webhook-url']),
      webhook_secret: orClear(f['webhook-secret']),
      // Unchecked here on purpose: updateShop validates it and answers an unknown type as validation_failed.
      webhook_events: eventList(f['webhook-events']) as EventType[] | undefined,
      payment_methods: methodsPatch(f.sbp, f['crypto-networks']),
    });
    return shopOutput(shop);
  },
};
