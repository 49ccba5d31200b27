import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { subjects, type PaymentLink } from '@pl/contracts';
import { Db } from '@pl/db';
import { LatePaymentRepository } from '../src/data/unresolved-payment.repository';
import { LinkRepository } from '../src/data/link.repository';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { LINKS_SCHEMA } from '../src/data/migrate';
import { metricSum, scrapedSum } from '../../../tests/support/metrics';
import { recordingLogger } from './support/log-recorder';
import { apiKey, platform, startLinksSystem, type LinksSystem } from './support/links-system';
import { eventTypesOf } from './support/outbox-events';

/** Rounds of the expiry sweeper racing a provider's `paid` on one due link. */
const SWEEPER_ROUNDS = 40;

interface LateRow {
  link_id: string;
  link_status: string;
  provider: string;
  gateway_payment_id: string;
  payer_amount: string;
  received_at: Date;
}

describe('a paid callback for a link that is no longer pending', () => {
  let system: LinksSystem;
  let sweeperDb: Db;
  let sweeper: LinkRepository;
  const recorder = recordingLogger('warn');
  const merchant = randomUUID();
  let shopId: number;

  const settle = (gatewayPaymentId: string, status: 'paid' | 'failed' = 'paid'): Promise<PaymentLink> =>
    system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: gatewayPaymentId, status }, platform);
  const getLink = (id: string): Promise<PaymentLink> => system.bus.request(subjects.linksGet, { id }, apiKey(merchant));
  const newLink = (): Promise<PaymentLink> =>
    system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 100000, order_id: 'order-late' });
  const lateRows = (linkId: string): Promise<LateRow[]> =>
    system.linksDb.query<LateRow>(
      'SELECT link_id, link_status, provider, gateway_payment_id, payer_amount, received_at FROM unresolved_payments WHERE link_id = $1',
      [linkId],
    );
  const counter = (linkStatus?: string): Promise<number> =>
    scrapedSum(system.linksOpsPort, 'late_payments_total', linkStatus === undefined ? {} : { link_status: linkStatus });
  const eventTypes = (linkId: string): Promise<string[]> => eventTypesOf(system.linksDb, linkId);
  const CLOSING_EVENT = { expired: 'payment_link.expired', canceled: 'payment_link.canceled', failed: 'payment.failed' } as const;
  const makeDue = (id: string): Promise<unknown> =>
    system.linksDb.query("UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1", [
      id,
    ]);
  const warnedAbout = (linkId: string) => recorder.lines.filter((l) => l.level === 40 && (l as { link_id?: string }).link_id === linkId);

  /** Brings a fresh link (a buyer selected SBP: what they were asked is the SBP amount) into `state`. */
  const linkIn = async (state: 'expired' | 'canceled' | 'failed'): Promise<PaymentLink> => {
    const link = await newLink();
    await system.bus.request(subjects.linksSelect, { id: link.id, method: 'sbp', network: null }, platform);
    if (state === 'expired') {
      await makeDue(link.id);
      expect(await sweeper.expireDueBatch(1000, LINKS_OWN_MODE)).toContain(link.id);
    } else if (state === 'canceled') {
      await system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant));
    } else {
      await settle(`sbx_${link.id}`, 'failed');
    }
    const moved = await getLink(link.id);
    expect(moved.status).toBe(state);
    return moved;
  };

  beforeAll(async () => {
    // The service's own sweeper stays out of the way; the tests run the sweeper's statement themselves.
    system = await startLinksSystem('linkslate', { EXPIRY_SWEEP_INTERVAL_MS: '3600000' }, recorder.log);
    sweeperDb = new Db({ url: system.databaseUrl, schema: LINKS_SCHEMA, log: pino({ level: 'silent' }) });
    sweeper = new LinkRepository(sweeperDb, undefined, system.topic);
    shopId = await system.createShop(merchant, { crypto_bps: 100, sbp_bps: 300, fee_payer: 'client' });
  });

  afterAll(async () => {
    await sweeperDb?.close();
    await system?.stop();
  });

  it('exposes late_payments_total at 0 for every link state before any arrived', async () => {
    const text = await (await fetch(`http://127.0.0.1:${system.linksOpsPort}/metrics`)).text();
    for (const state of ['paid', 'expired', 'canceled', 'failed']) {
      expect({ state, value: metricSum(text, 'late_payments_total', { link_status: state, app: 'links' }) }).toEqual({ state, value: 0 });
    }
  });

  it.each(['expired', 'canceled', 'failed'] as const)(
    'records a paid for a %s link once however often it comes, leaves the link as it was and counts it once',
    async (state) => {
      const link = await linkIn(state);
      const before = await counter(state);
      const arrived = Date.now();
      for (let i = 0; i < 3; i += 1) {
        await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({
          code: 'payment_link.err.not_pending',
          message: `Payment link is ${state}, not pending`,
        });
      }
      await expect(getLink(link.id)).resolves.toEqual(link);
      const rows = await lateRows(link.id);
      expect(rows).toEqual([
        {
          link_id: link.id,
          link_status: state,
          provider: 'sandbox',
          gateway_payment_id: `sbx_${link.id}`,
          // 1000.00 at the SBP rate of 300 bps, paid by the client: what the buyer was asked.
          payer_amount: '103000',
          received_at: expect.any(Date),
        },
      ]);
      expect(link.payer_amount).toBe('1030.00');
      expect(Math.abs((rows[0]?.received_at.getTime() ?? 0) - arrived)).toBeLessThan(60_000);
      expect((await counter(state)) - before).toBe(1);
      expect(warnedAbout(link.id)).toEqual([
        expect.objectContaining({
          link_id: link.id,
          mode: 'live',
          link_status: state,
          component: 'late-payments',
          msg: expect.stringMatching(/^late payment recorded/),
        }),
      ]);
      // The move's own event; a late payment sends none.
      expect(await eventTypes(link.id)).toEqual([CLOSING_EVENT[state], 'unresolved_payment.created']);
    },
  );

  it('records nothing for a repeat of the payment that paid the link: a duplicate callback, not a late payment', async () => {
    const link = await newLink();
    const paid = await settle(`sbx_${link.id}`);
    const before = await counter();
    await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({ message: 'Payment link is paid, not pending' });
    await expect(getLink(link.id)).resolves.toEqual(paid);
    expect(await lateRows(link.id)).toEqual([]);
    expect(await counter()).toBe(before);
    expect(warnedAbout(link.id)).toEqual([]);
  });

  it('records a second payment for a paid link (another payment id the provider ties to it) as late, with link_status paid', async () => {
    const link = await newLink();
    await settle(`sbx_${link.id}`);
    // As with a provider that opens a new payment per attempt: the link was paid by another payment of its.
    await system.linksDb.query('UPDATE payment_links SET gateway_payment_id = $2 WHERE id = $1', [link.id, `first-${link.id}`]);
    const paid = await getLink(link.id);
    const before = await counter('paid');
    await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({ message: 'Payment link is paid, not pending' });
    await expect(settle(`sbx_${link.id}`)).rejects.toMatchObject({ message: 'Payment link is paid, not pending' });
    await expect(getLink(link.id)).resolves.toEqual(paid);
    expect(await lateRows(link.id)).toEqual([
      expect.objectContaining({ link_status: 'paid', gateway_payment_id: `sbx_${link.id}`, payer_amount: '101000' }),
    ]);
    expect((await counter('paid')) - before).toBe(1);
    expect(await eventTypes(link.id)).toEqual(['payment.succeeded', 'unresolved_payment.created']);
  });

  it('pays a pending link that shows another payment when the payment is one of its attempts, at that attempt’s amounts', async () => {
    const link = await newLink();
    await system.bus.request(subjects.linksSelect, { id: link.id, method: 'sbp', network: null }, platform);
    // The link now shows a payment none of its attempts made: the attempt's own is put back, then paid.
    await system.linksDb.query('UPDATE payment_links SET gateway_payment_id = $2 WHERE id = $1', [link.id, `other-${link.id}`]);
    const paid = await settle(`sbx_${link.id}`);
    expect(paid).toMatchObject({ status: 'paid', gateway_payment_id: `sbx_${link.id}`, payer_amount: '1030.00', merchant_credit: '1000.00' });
    expect(await lateRows(link.id)).toEqual([]);
  });

  it('still answers 404 to a payment no attempt and no link made, and records nothing', async () => {
    const link = await newLink();
    await expect(settle(`sbx_${randomUUID()}`)).rejects.toMatchObject({ code: 'common.err.not_found' });
    await expect(settle(`unknown-${link.id}`)).rejects.toMatchObject({ code: 'common.err.not_found' });
    expect((await getLink(link.id)).status).toBe('pending');
    expect(await lateRows(link.id)).toEqual([]);
  });

  it('records nothing for a failed verdict on a link that is no longer pending: no money arrived', async () => {
    const link = await linkIn('canceled');
    await expect(settle(`sbx_${link.id}`, 'failed')).rejects.toMatchObject({ message: 'Payment link is canceled, not pending' });
    expect(await lateRows(link.id)).toEqual([]);
  });

  it('records one row for 20 copies of the same paid callback arriving at once', async () => {
    const link = await linkIn('expired');
    const before = await counter('expired');
    const answers = await Promise.allSettled(Array.from({ length: 20 }, () => settle(`sbx_${link.id}`)));
    for (const answer of answers) expect(answer).toMatchObject({ status: 'rejected', reason: { code: 'payment_link.err.not_pending' } });
    expect(await lateRows(link.id)).toHaveLength(1);
    expect((await counter('expired')) - before).toBe(1);
    expect(warnedAbout(link.id)).toHaveLength(1);
  });

  it(`settles or records every paid racing the expiry sweeper, exactly once, over ${SWEEPER_ROUNDS} rounds`, async () => {
    const before = await counter();
    const outcomes = { paid: 0, late: 0 };
    for (let round = 0; round < SWEEPER_ROUNDS; round += 1) {
      const link = await newLink();
      await makeDue(link.id);
      // Each side gets the head start in turn, the other a random 0–8 ms delay: both orders happen.
      const start = <T>(favoured: boolean, op: () => Promise<T>): Promise<T> =>
        new Promise((resolve) => setTimeout(resolve, favoured ? 0 : Math.random() * 8)).then(op);
      const [pay, sweep] = await Promise.allSettled([
        start(round % 2 === 0, () => settle(`sbx_${link.id}`)),
        start(round % 2 === 1, () => sweeper.expireDueBatch(1000, LINKS_OWN_MODE)),
      ]);
      // The provider repeats its callback, as providers do.
      const repeat = await Promise.allSettled([settle(`sbx_${link.id}`)]);
      const final = await getLink(link.id);
      const swept = sweep.status === 'fulfilled' && sweep.value.includes(link.id);
      // One winner: the payment settled the link, or the sweeper expired it and the payment is late.
      expect({ round, paid: pay.status === 'fulfilled' }).toEqual({ round, paid: !swept });
      expect(final.status).toBe(swept ? 'expired' : 'paid');
      expect(repeat[0]).toMatchObject({ status: 'rejected', reason: { code: 'payment_link.err.not_pending' } });
      expect(await lateRows(link.id)).toEqual(
        swept ? [expect.objectContaining({ link_status: 'expired', gateway_payment_id: `sbx_${link.id}` })] : [],
      );
      // Exactly the winner's event (and the late payment's record, once): the loser wrote none.
      expect(await eventTypes(link.id)).toEqual(swept ? ['payment_link.expired', 'unresolved_payment.created'] : ['payment.succeeded']);
      outcomes[swept ? 'late' : 'paid'] += 1;
    }
    expect((await counter()) - before).toBe(outcomes.late);
    // The race really was one: each side won some rounds.
    expect(outcomes.paid).toBeGreaterThan(0);
    expect(outcomes.late).toBeGreaterThan(0);
    process.stdout.write(`sweeper vs callback: ${SWEEPER_ROUNDS} rounds, ${outcomes.paid} paid, ${outcomes.late} late payments recorded\n`);
  });

  it('lists late payments since a time, oldest first, with the merchant, shop and order of their links', async () => {
    const repository = new LatePaymentRepository(system.linksDb);
    const since = new Date();
    const first = await linkIn('canceled');
    await expect(settle(`sbx_${first.id}`)).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
    const second = await linkIn('failed');
    await expect(settle(`sbx_${second.id}`)).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
    const listed = await repository.list(since);
    expect(listed.map((l) => [l.linkId, l.linkStatus])).toEqual([
      [first.id, 'canceled'],
      [second.id, 'failed'],
    ]);
    expect(listed[0]).toMatchObject({ merchantId: merchant, shopId, orderId: 'order-late', provider: 'sandbox', payerAmount: 103000 });
    expect((await repository.list(null)).length).toBeGreaterThan(listed.length);
  });
});
