import { randomUUID } from 'node:crypto';
import { paymentLink, paymentSucceededEvent, subjects, type PaymentLink } from '@pl/contracts';
import { eventually } from '@pl/testing';
import { LinkRepository } from '../src/data/link.repository';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { paymentSucceeded } from '../src/domain/payment-event';
import { recordTopic, type TopicRecorder } from './support/kafka-events';
import { eventTypesOf, outboxEventsOf } from './support/outbox-events';
import { apiKey, platform, startLinksSystem, type LinksSystem } from './support/links-system';

// A Kafka consumer group's first join takes about three seconds on the mock cluster.
jest.setTimeout(60_000);

describe('links.settle', () => {
  let system: LinksSystem;
  let kafka: TopicRecorder;
  const merchant = randomUUID();
  let shopId: number;

  const settle = (gatewayPaymentId: string, status: 'paid' | 'failed' = 'paid', provider = 'sandbox'): Promise<PaymentLink> =>
    system.bus.request(subjects.linksSettle, { provider, gateway_payment_id: gatewayPaymentId, status }, platform);
  const newLink = () => system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 150000, order_id: 'order-42' });
  const outboxRows = (linkId: string) =>
    system.linksDb.query<{ id: string; queued: boolean }>(
      'SELECT o.id, EXISTS (SELECT 1 FROM outbox_pending p WHERE p.id = o.id) AS queued FROM outbox o WHERE message_key = $1',
      [linkId],
    );

  beforeAll(async () => {
    system = await startLinksSystem('linkssettle');
    kafka = await recordTopic(system.topic);
    shopId = await system.createShop(merchant, { crypto_bps: 200, sbp_bps: 300, fee_payer: 'split' });
  });

  afterAll(async () => {
    await kafka?.close();
    await system?.stop();
  });

  it('marks a selected link paid with paid_at and publishes exactly one payment.succeeded keyed by the link id', async () => {
    const link = await newLink();
    await system.bus.request(subjects.linksSelect, { id: link.id, method: 'crypto', network: 'USDT-TON' }, platform);
    const paid = await settle(`sbx_${link.id}`);
    expect(paymentLink.parse(paid)).toEqual(paid);
    expect(paid).toMatchObject({ id: link.id, status: 'paid', network: 'USDT-TON', merchant_credit: '1485.00' });
    expect(paid.paid_at).toMatch(/\+03:00$/);

    const [row] = await outboxRows(link.id);
    await kafka.waitForKey(link.id);
    const events = (await kafka.settled([link.id])).filter((e) => e.key === link.id);
    expect(events).toHaveLength(1);
    const [event] = events;
    const raw = JSON.parse(event?.value ?? '') as unknown;
    // Written, not the contract's default for events older than test mode.
    expect(raw).toMatchObject({ livemode: true });
    const payload = paymentSucceededEvent.parse(raw);
    expect(event?.headers).toEqual({ 'event-id': row?.id, 'event-type': 'payment.succeeded', 'content-type': 'application/json' });
    expect(payload).toEqual({
      event_id: row?.id,
      event: 'payment.succeeded',
      occurred_at: paid.paid_at,
      merchant_id: merchant,
      livemode: true,
      data: {
        payment_link_id: link.id,
        id: link.id,
        shop_id: shopId,
        order_id: 'order-42',
        amount: '1500.00',
        merchant_credit: '1485.00',
        status: 'paid',
        paid_at: paid.paid_at,
      },
    });
    // The relay takes what it published off the queue, in the background once Kafka acknowledged it; the record stays.
    await eventually(async () => (await outboxRows(link.id))[0]?.queued === false, 'the event off the queue', 10_000, 20);
    await expect(outboxRows(link.id)).resolves.toEqual([{ id: row?.id, queued: false }]);
  });

  it('does not settle a link whose selection changed since it was read, so no event reports stale amounts', async () => {
    const link = await newLink();
    const links = new LinkRepository(system.linksDb);
    const read = await links.findForPayment('sandbox', `sbx_${link.id}`, link.id, LINKS_OWN_MODE);
    if (!read) throw new Error('the link was not found for its payment');
    // The buyer switches to SBP (a new rate, a new credit) between the settle's read and its write.
    await system.bus.request(subjects.linksSelect, { id: link.id, method: 'sbp', network: null }, platform);
    const at = new Date();
    const stale = paymentSucceeded({ ...read, status: 'paid', paidAt: at }, randomUUID(), system.topic);
    await expect(
      links.settle(read, { to: 'paid', failureReason: null, gatewayProvider: 'sandbox', gatewayPaymentId: `sbx_${link.id}`, at }, stale),
    ).resolves.toBeNull();
    expect(await outboxRows(link.id)).toEqual([]);

    // Through the use case the link is read again, and the event reports the SBP credit.
    const selected = await system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant));
    const paid = await settle(selected.gateway_payment_id!);
    expect(paid).toMatchObject({ status: 'paid', network: 'SBP', merchant_credit: selected.merchant_credit });
    const event = await kafka.waitForKey(link.id);
    expect(paymentSucceededEvent.parse(JSON.parse(event.value)).data.merchant_credit).toBe(selected.merchant_credit);
    expect((await kafka.settled([link.id])).filter((e) => e.key === link.id)).toHaveLength(1);
    expect(selected.merchant_credit).not.toBe(read.merchantCredit);
  });

  it('answers 409 to a repeated callback and publishes no second event', async () => {
    const link = await newLink();
    const paid = await settle(`sbx_${link.id}`);
    await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({
      kind: 'conflict',
      code: 'payment_link.err.not_pending',
      message: 'Payment link is paid, not pending',
    });
    await expect(settle(`sbx_${link.id}`, 'failed')).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toEqual(paid);
    expect(await outboxRows(link.id)).toHaveLength(1);
    await kafka.waitForKey(link.id);
    expect((await kafka.settled([link.id])).filter((e) => e.key === link.id)).toHaveLength(1);
  });

  it('settles a link that never had a method selected at its current amounts and stamps the payment', async () => {
    const link = await newLink();
    const paid = await settle(`sbx_${link.id}`);
    expect(paid).toMatchObject({
      status: 'paid',
      fee_bps: 200,
      payer_amount: link.payer_amount,
      merchant_credit: link.merchant_credit,
      gateway_provider: 'sandbox',
      gateway_payment_id: `sbx_${link.id}`,
      network: null,
    });
    expect(await outboxRows(link.id)).toHaveLength(1);
  });

  it('moves a link to failed with exactly one payment.failed, its time the move, written with the move', async () => {
    const link = await newLink();
    await system.bus.request(subjects.linksSelect, { id: link.id, method: 'sbp', network: null }, platform);
    const failed = await settle(`sbx_${link.id}`, 'failed');
    expect(failed).toMatchObject({ status: 'failed', paid_at: null, network: 'SBP' });
    const [written, ...more] = await outboxEventsOf(system.linksDb, link.id);
    expect(more).toEqual([]);
    expect(written?.headers).toEqual({ 'event-id': written?.id, 'event-type': 'payment.failed', 'content-type': 'application/json' });
    expect(written?.event).toEqual({
      event_id: written?.id,
      event: 'payment.failed',
      occurred_at: failed.updated_at,
      merchant_id: merchant,
      livemode: true,
      data: {
        payment_link_id: link.id,
        id: link.id,
        shop_id: shopId,
        order_id: 'order-42',
        amount: '1500.00',
        // The selection's credit (SBP's rate), not the one at creation.
        merchant_credit: failed.merchant_credit,
        status: 'failed',
        failed_at: failed.updated_at,
        failure_reason: 'provider_failed',
      },
    });
    expect(failed.failure_reason).toBe('provider_failed');
    await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({ message: 'Payment link is failed, not pending' });
    await expect(settle(`sbx_${link.id}`, 'failed')).rejects.toMatchObject({ message: 'Payment link is failed, not pending' });
    // The paid after the failure is money that arrived: recorded as a late payment, its one event.
    expect(await eventTypesOf(system.linksDb, link.id)).toEqual(['payment.failed', 'unresolved_payment.created']);
  });

  it('answers 404 for a payment nobody knows and for a provider this service does not know', async () => {
    await expect(settle(`sbx_${randomUUID()}`)).rejects.toMatchObject({ code: 'common.err.not_found' });
    await expect(settle('some-other-id')).rejects.toMatchObject({ code: 'common.err.not_found' });
    const link = await newLink();
    await expect(settle(`sbx_${link.id}`, 'paid', 'acme-pay')).rejects.toMatchObject({ code: 'common.err.not_found' });
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toMatchObject({ status: 'pending' });
  });

  it('answers 409 for a canceled link and changes nothing', async () => {
    const link = await newLink();
    const canceled = await system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant));
    await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({ message: 'Payment link is canceled, not pending' });
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toEqual(canceled);
    // The cancel's event, and the late payment's record.
    expect(await eventTypesOf(system.linksDb, link.id)).toEqual(['payment_link.canceled', 'unresolved_payment.created']);
  });

  it('refuses merchants: only the gateway relays provider verdicts', async () => {
    const link = await newLink();
    await expect(
      system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status: 'paid' }, apiKey(merchant)),
    ).rejects.toMatchObject({ code: 'common.err.forbidden' });
  });
});
