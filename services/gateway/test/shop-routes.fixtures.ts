import { randomUUID } from 'node:crypto';
import { CREDENTIAL_PREFIXES, subjects, type MerchantShop, type Mode, type WebhookDelivery } from '@pl/contracts';
import { steppedUpSession } from '../../../tests/support/second-factor';
import type { Harness, Reply } from './harness';

/** A shop as the shops service answers it. */
export const shop = (over: Partial<MerchantShop> = {}): MerchantShop => ({
  id: 7,
  name: 'Coffee',
  status: 'pending',
  fee_payer: 'merchant',
  crypto_bps: 100,
  sbp_bps: 100,
  webhook_url: null,
  webhook_events: ['payment.succeeded'],
  payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
  webhook_secret_set: true,
  previous_secret_valid_until: null,
  payout_schedule: { interval: 'manual', destination_id: null, minimum: null },
  created_at: '2026-11-22T12:00:00+03:00',
  updated_at: '2026-11-22T12:00:00+03:00',
  ...over,
});

const testDelivery = (shopId: number): WebhookDelivery => ({
  id: randomUUID(),
  webhook_id: `msg_${randomUUID()}`,
  payment_link_id: null,
  shop_id: shopId,
  event: 'webhook.test',
  status: 'pending',
  attempts: [],
  attempts_omitted: 0,
  livemode: true,
});

/** The fields a 400 names, each once (an empty name is both too short and blank). */
export const fieldsNamed = (res: Reply): string[] => [...new Set(res.body.error.details.map((d: { field: string }) => d.field))].sort() as string[];

/** Helpers of the shop-route tests over the harness a file starts (`harness()` reads it once it is there). */
export function shopFixtures(harness: () => Harness) {
  const signIn = async (emailConfirmed: boolean) => {
    const h = harness();
    const m = await h.merchant(emailConfirmed);
    // Stepped up: rotating a secret and reissuing a cashier key need a second factor verified in the last 10 minutes.
    const token = await steppedUpSession(h.request, m);
    return { ...m, auth: { Authorization: `Bearer ${token}` } };
  };
  type SignedIn = Awaited<ReturnType<typeof signIn>>;
  /** Sign-ins are throttled per address, so a file signs in two merchants once: confirmed and not. */
  const sessions = new Map<boolean, Promise<SignedIn>>();
  const callsTo = (subject: { name: string }): Harness['calls'] => harness().calls.filter((c) => c.subject === subject.name);
  return {
    signIn,
    /** A merchant signed in to the dashboard: its session as a Bearer header. */
    signedIn: (emailConfirmed = true): Promise<SignedIn> => {
      let s = sessions.get(emailConfirmed);
      if (!s) sessions.set(emailConfirmed, (s = signIn(emailConfirmed)));
      return s;
    },
    callsTo,
    /** The shops service and notifier as the routes need them: they echo what they were asked for. */
    scriptShops: (): void => {
      const h = harness();
      h.on(subjects.shopsList.name, async () => ({ shops: [shop({ id: 9 }), shop()], has_more: true, next_cursor: 'c2' }));
      h.on(subjects.shopsRead.name, async (p) => shop({ id: (p as { shop_id: number }).shop_id }));
      h.on(subjects.shopsCreate.name, async (p) => {
        const c = p as { name: string; webhook_url: string | null; fee_payer: MerchantShop['fee_payer'] };
        return shop({
          id: 100 + callsTo(subjects.shopsCreate).length,
          name: c.name,
          webhook_url: c.webhook_url,
          fee_payer: c.fee_payer,
          webhook_secret_set: true,
        });
      });
      h.on(subjects.shopsUpdate.name, async (p) => {
        const { shop_id, ...changes } = p as { shop_id: number } & Partial<MerchantShop>;
        return shop({ id: shop_id, ...changes });
      });
      h.on(subjects.shopsRotateSecret.name, async () => ({
        webhook_secret: 'whsecret-new',
        standard_webhooks_secret: `whsec_${Buffer.from('whsecret-new').toString('base64')}`,
        previous_valid_until: '2026-11-23T12:00:00+03:00',
      }));
      h.on(subjects.shopsReissueCashierKey.name, async (p) => {
        const { mode } = p as { mode: Mode };
        return { cashier_key: `${CREDENTIAL_PREFIXES.cashierKey[mode]}${randomUUID()}`, mode };
      });
      h.on(subjects.deliveriesTest.name, async (p) => testDelivery((p as { shop_id: number }).shop_id));
    },
  };
}
