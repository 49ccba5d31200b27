import { randomUUID } from 'node:crypto';
import { buyerLinkView, subjects, type BuyerLinkView, type PaymentLink } from '@pl/contracts';
import type { Db } from '@pl/db';
import { AttemptRepository } from '../src/data/attempt.repository';
import { IdempotencyRepository } from '../src/data/idempotency.repository';
import { UnresolvedPaymentRepository } from '../src/data/unresolved-payment.repository';
import { LinkRepository } from '../src/data/link.repository';
import { ShopClient } from '../src/data/shop.client';
import type { LinkRecord } from '../src/domain/link';
import type { LinkDeps, ModeReach } from '../src/domain/ports';
import { parseExchangeRates, ProviderRegistry, SandboxProvider } from '@pl/providers';
import { selectMethod } from '../src/domain/select-method';
import { simulatePayment } from '../src/domain/simulate-payment';
import { recordingLogger } from './support/log-recorder';
import { apiKey, platform, startLinksSystem, testKey, type LinksSystem } from './support/links-system';
import { StandInProvider } from '../../../tests/support/stand-in-provider';

/** A stand-in for a real provider: whatever reaches it is a payment that would move money. */
const realGateway = new StandInProvider('raiffeisen_sbp', 'stand-in-secret');
const sandbox = new SandboxProvider({ rates: parseExchangeRates('USDT=95,BTC=6500000,ETH=250000,TON=450'), callbackSecret: 's'.repeat(32) });

/** A store whose first read of one link returns it as it was before something moved it: the simulator lost a race. */
class StaleRead extends LinkRepository {
  constructor(
    db: Db,
    private readonly stale: LinkRecord,
  ) {
    super(db);
  }

  override async findById(id: string, reach: ModeReach): Promise<LinkRecord | null> {
    return id === this.stale.id ? this.stale : super.findById(id, reach);
  }
}

describe('test mode at the checkout: the sandbox and the simulator', () => {
  let system: LinksSystem;
  const recorder = recordingLogger('info');
  const merchant = randomUUID();
  let shopId: number;

  const simulate = (id: string, status: 'paid' | 'failed' = 'paid'): Promise<BuyerLinkView> =>
    system.bus.request(subjects.linksSimulate, { id, status }, platform);
  const merchantView = (link: PaymentLink): Promise<PaymentLink> =>
    system.bus.request(subjects.linksGet, { id: link.id }, link.livemode ? apiKey(merchant) : testKey(merchant));
  const outbox = (linkId: string) =>
    system.linksDb.query<{ payload: Record<string, unknown> }>('SELECT payload FROM outbox WHERE message_key = $1', [linkId]);
  const latePayments = (linkId: string) =>
    system.linksDb.query<{ link_status: string; gateway_payment_id: string }>(
      'SELECT link_status, gateway_payment_id FROM unresolved_payments WHERE link_id = $1',
      [linkId],
    );
  const newTestLink = () => system.createLink(testKey(merchant), { shop_id: shopId, order_id: 'sim-1' });

  /** The service's dependencies, on this system's database and shops, with a real gateway for live payments. */
  const depsWith = (links: LinkRepository): LinkDeps => ({
    links,
    unresolvedPayments: new UnresolvedPaymentRepository(system.linksDb),
    idempotency: new IdempotencyRepository(system.linksDb),
    shops: new ShopClient(system.bus),
    now: () => new Date(),
    newId: randomUUID,
    providers: new ProviderRegistry(sandbox, { sbp: realGateway, crypto: realGateway }),
    providerTimeoutMs: 1000,
    attempts: new AttemptRepository(system.linksDb),
    warn: () => undefined,
    eventsTopic: system.topic,
  });

  beforeAll(async () => {
    system = await startLinksSystem('linkssim', {}, recorder.log);
    shopId = await system.createShop(merchant, { status: 'pending' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe('method selection', () => {
    it('sends a test link to the sandbox and a live one to the live provider', async () => {
      const approved = await system.createShop(merchant);
      const deps = depsWith(new LinkRepository(system.linksDb));
      const test = await system.createLink(testKey(merchant), { shop_id: approved });
      const live = await system.createLink(apiKey(merchant), { shop_id: approved });
      const sbp = { method: 'sbp', network: null } as const;
      await expect(selectMethod(deps, platform, { id: test.id, ...sbp })).resolves.toMatchObject({
        link: { livemode: false, gatewayProvider: 'sandbox', gatewayPaymentId: `sbx_${test.id}` },
      });
      await expect(selectMethod(deps, platform, { id: live.id, ...sbp })).resolves.toMatchObject({
        link: { livemode: true, gatewayProvider: 'raiffeisen_sbp', gatewayPaymentId: expect.stringMatching(/^sip_/) },
      });
    });
  });

  describe('links.simulate', () => {
    it('pays a test link through the provider path: the buyer view, and payment.succeeded with livemode false', async () => {
      const link = await newTestLink();
      const view = await simulate(link.id, 'paid');
      expect(buyerLinkView.strict().parse(view)).toEqual(view);
      expect(view).toMatchObject({ id: link.id, status: 'paid', livemode: false, gateway_provider: 'sandbox', gateway_payment_id: `sbx_${link.id}` });
      for (const hidden of ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id']) expect(view).not.toHaveProperty(hidden);
      const paid = await merchantView(link);
      expect(paid).toMatchObject({ status: 'paid', livemode: false, paid_at: expect.any(String) });
      const events = await outbox(link.id);
      expect(events).toHaveLength(1);
      expect(events[0]?.payload).toMatchObject({
        event: 'payment.succeeded',
        livemode: false,
        merchant_id: merchant,
        data: { payment_link_id: link.id, status: 'paid', order_id: 'sim-1', paid_at: paid.paid_at },
      });
      expect(recorder.lines).toContainEqual(
        expect.objectContaining({ msg: 'test payment simulated', link_id: link.id, mode: 'test', status: 'paid' }),
      );
    });

    it('settles a selected link with the payment it selected', async () => {
      const link = await newTestLink();
      await system.bus.request(subjects.linksSelect, { id: link.id, method: 'crypto', network: 'USDT-TON' }, platform);
      await expect(simulate(link.id, 'paid')).resolves.toMatchObject({ status: 'paid', network: 'USDT-TON', gateway_payment_id: `sbx_${link.id}` });
    });

    it('fails a test link, with one payment.failed of livemode false', async () => {
      const link = await newTestLink();
      await expect(simulate(link.id, 'failed')).resolves.toMatchObject({ status: 'failed', livemode: false, paid_at: null });
      const failed = await merchantView(link);
      expect(failed).toMatchObject({ status: 'failed' });
      const events = await outbox(link.id);
      expect(events).toHaveLength(1);
      expect(events[0]?.payload).toMatchObject({
        event: 'payment.failed',
        livemode: false,
        merchant_id: merchant,
        occurred_at: failed.updated_at,
        data: { payment_link_id: link.id, status: 'failed', order_id: 'sim-1', amount: failed.amount, failed_at: failed.updated_at },
      });
    });

    it('answers 404 for a live link, leaving it pending, and for an unknown one', async () => {
      const approved = await system.createShop(merchant);
      const live = await system.createLink(apiKey(merchant), { shop_id: approved });
      for (const status of ['paid', 'failed'] as const) {
        await expect(simulate(live.id, status)).rejects.toMatchObject({ code: 'common.err.not_found', message: 'Payment link not found' });
      }
      await expect(merchantView(live)).resolves.toMatchObject({ status: 'pending', livemode: true });
      await expect(outbox(live.id)).resolves.toEqual([]);
      await expect(simulate(randomUUID())).rejects.toMatchObject({ code: 'common.err.not_found' });
    });

    it('answers 409 not_pending for a test link that left pending, changing nothing and recording no late payment', async () => {
      const canceled = await newTestLink();
      await system.bus.request(subjects.linksCancel, { id: canceled.id }, testKey(merchant));
      await expect(simulate(canceled.id, 'paid')).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
      await expect(merchantView(canceled)).resolves.toMatchObject({ status: 'canceled' });
      await expect(latePayments(canceled.id)).resolves.toEqual([]);
      // The cancel's event, of the test mode; the refused simulation wrote none.
      await expect(outbox(canceled.id)).resolves.toEqual([{ payload: expect.objectContaining({ event: 'payment_link.canceled', livemode: false }) }]);

      const paid = await newTestLink();
      await simulate(paid.id, 'paid');
      await expect(simulate(paid.id, 'failed')).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
      await expect(outbox(paid.id)).resolves.toHaveLength(1);
    });

    it('records a simulated payment that lost the race to a cancel as a late payment, as a late callback is', async () => {
      const link = await newTestLink();
      const real = new LinkRepository(system.linksDb);
      const before = await real.findById(link.id, { mode: 'test' });
      if (!before) throw new Error('the test link was not found');
      await system.bus.request(subjects.linksCancel, { id: link.id }, testKey(merchant));
      await expect(simulatePayment(depsWith(new StaleRead(system.linksDb, before)), platform, { id: link.id, status: 'paid' })).rejects.toMatchObject(
        {
          code: 'payment_link.err.not_pending',
        },
      );
      await expect(latePayments(link.id)).resolves.toEqual([{ link_status: 'canceled', gateway_payment_id: `sbx_${link.id}` }]);
      await expect(merchantView(link)).resolves.toMatchObject({ status: 'canceled' });
      // The cancel's event, and the late payment's record: the payment that lost moved nothing.
      await expect(outbox(link.id)).resolves.toEqual([
        { payload: expect.objectContaining({ event: 'payment_link.canceled' }) },
        { payload: expect.objectContaining({ event: 'unresolved_payment.created', livemode: false }) },
      ]);
    });

    it('refuses a merchant identity: only the gateway acts for the checkout', async () => {
      const link = await newTestLink();
      await expect(system.bus.request(subjects.linksSimulate, { id: link.id, status: 'paid' }, testKey(merchant))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(merchantView(link)).resolves.toMatchObject({ status: 'pending' });
    });
  });
});
