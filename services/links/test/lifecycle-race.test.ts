import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { subjects, type LinkStatus, type PaymentLink } from '@pl/contracts';
import { Db } from '@pl/db';
import { LinkRepository } from '../src/data/link.repository';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { LINKS_SCHEMA } from '../src/data/migrate';
import { apiKey, platform, startLinksSystem, type LinksSystem } from './support/links-system';

const LINKS = 50;

/** Starts `op` after a random 0–`maxMs` ms, so the three moves reach the database in varying orders. */
const jittered = <T>(maxMs: number, op: () => Promise<T>): Promise<T> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * maxMs)).then(op);

describe('cancel, pay and expire racing on one link', () => {
  let system: LinksSystem;
  let sweeperDb: Db;
  let sweeper: LinkRepository;
  const merchant = randomUUID();
  let shopId: number;

  beforeAll(async () => {
    // The service's own sweeper stays out of the way; the test runs the sweeper's statement itself.
    system = await startLinksSystem('linksrace', { EXPIRY_SWEEP_INTERVAL_MS: '3600000' });
    sweeperDb = new Db({ url: system.databaseUrl, schema: LINKS_SCHEMA, log: pino({ level: 'silent' }) });
    sweeper = new LinkRepository(sweeperDb, undefined, system.topic);
    shopId = await system.createShop(merchant);
  });

  afterAll(async () => {
    await sweeperDb?.close();
    await system?.stop();
  });

  it(`lets exactly one move win on each of ${LINKS} links; every loser is refused with the winner's state`, async () => {
    const links = await Promise.all(Array.from({ length: LINKS }, () => system.createLink(apiKey(merchant), { shop_id: shopId })));
    // Half are made due, so expiry can win there; on the others it has nothing to do and cancel can win.
    const due = new Set(links.filter((_, i) => i % 2 === 0).map((l) => l.id));

    const races = [];
    // One race at a time, so the sweeper's statement meets only the link under test; within a race a
    // random move gets a head start, so each of them gets its chance to win.
    for (const [i, link] of links.entries()) {
      if (due.has(link.id)) {
        await system.linksDb.query(
          "UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1",
          [link.id],
        );
      }
      const favoured = i % 3;
      const start = <T>(n: number, op: () => Promise<T>): Promise<T> => jittered(n === favoured ? 0 : 8, op);
      const [cancel, pay, sweep] = await Promise.allSettled([
        start(0, () => system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant))),
        start(1, () =>
          system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status: 'paid' }, platform),
        ),
        start(2, () => sweeper.expireDueBatch(1000, LINKS_OWN_MODE)),
      ]);
      races.push({ link, cancel, pay, sweep });
    }
    const sweptIds = new Set(races.flatMap((r) => (r.sweep.status === 'fulfilled' ? r.sweep.value : [])));
    const outbox = await system.linksDb.query<{ message_key: string; type: string }>("SELECT message_key, payload->>'event' AS type FROM outbox");
    const WINNER_EVENT = { paid: 'payment.succeeded', canceled: 'payment_link.canceled', expired: 'payment_link.expired' } as const;

    const winners: Record<string, number> = {};
    for (const { link, cancel, pay } of races) {
      const final: PaymentLink = await system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant));
      const won: LinkStatus[] = [];
      if (cancel.status === 'fulfilled') won.push('canceled');
      if (pay.status === 'fulfilled') won.push('paid');
      if (sweptIds.has(link.id)) won.push('expired');
      expect(won.length).toBeLessThanOrEqual(1);
      // No winner among the three means the losing cancel's read expired the due link itself.
      const winner = (won[0] ?? 'expired') as keyof typeof WINNER_EVENT;
      expect(final.status).toBe(winner);
      winners[winner] = (winners[winner] ?? 0) + 1;
      expect(due.has(link.id) ? ['paid', 'expired'] : ['paid', 'canceled']).toContain(winner);

      for (const [move, result] of [
        ['canceled', cancel],
        ['paid', pay],
      ] as const) {
        if (result.status === 'fulfilled') {
          expect(result.value).toMatchObject({ id: link.id, status: move });
        } else {
          expect(result.reason).toMatchObject({ code: 'payment_link.err.not_pending', message: `Payment link is ${winner}, not pending` });
        }
      }
      expect(final.paid_at !== null).toBe(winner === 'paid');
      // Exactly one move event, the winner's (the read that expired a due link included): no loser wrote one. A payment
      // that lost to a cancel or an expiry is still the buyer's money: it is a late unresolved payment, with its event.
      const lateRecord = winner === 'paid' ? [] : ['unresolved_payment.created'];
      expect(
        outbox
          .filter((r) => r.message_key === link.id)
          .map((r) => r.type)
          .sort(),
      ).toEqual([WINNER_EVENT[winner], ...lateRecord].sort());
    }
    expect(Object.values(winners).reduce((a, b) => a + b, 0)).toBe(LINKS);
    // The race really was one: different moves won on different links.
    expect(Object.keys(winners).length).toBeGreaterThanOrEqual(2);
  });
});
