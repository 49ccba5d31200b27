import { randomUUID } from 'node:crypto';
import { subjects, type Identity, type PaymentLink } from '@pl/contracts';
import { apiKey, cashier, session, startLinksSystem, type LinksSystem } from './support/links-system';

describe('links.cancel', () => {
  let system: LinksSystem;
  const merchant = randomUUID();
  let shopId: number;

  const cancel = (id: string, identity: Identity = apiKey(merchant)): Promise<PaymentLink> =>
    system.bus.request(subjects.linksCancel, { id }, identity);
  const newLink = () => system.createLink(apiKey(merchant), { shop_id: shopId });

  beforeAll(async () => {
    system = await startLinksSystem('linkscancel');
    shopId = await system.createShop(merchant, { crypto_bps: 120 });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('cancels a pending link and answers the link with status canceled', async () => {
    const link = await newLink();
    const canceled = await cancel(link.id, session(merchant, false));
    expect(canceled).toEqual({ ...link, status: 'canceled', updated_at: expect.any(String) });
    expect(canceled.fee_percent_bp).toBe(120);
    expect(canceled.updated_at >= link.updated_at).toBe(true);
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toEqual(canceled);
  });

  it('answers 409 payment_link.err.not_pending to a second cancel', async () => {
    const link = await newLink();
    await cancel(link.id);
    await expect(cancel(link.id)).rejects.toMatchObject({
      kind: 'conflict',
      code: 'payment_link.err.not_pending',
      message: 'Payment link is canceled, not pending',
    });
  });

  it('lets exactly one of several concurrent cancels win; the others get 409', async () => {
    const link = await newLink();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => cancel(link.id)));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(5);
    for (const r of lost) expect(r.reason).toMatchObject({ code: 'payment_link.err.not_pending' });
  });

  it('answers 404 for an unknown link', async () => {
    await expect(cancel(randomUUID())).rejects.toMatchObject({ code: 'common.err.not_found' });
  });

  it("answers 403 for another merchant's link and leaves it pending", async () => {
    const link = await newLink();
    await expect(cancel(link.id, apiKey(randomUUID()))).rejects.toMatchObject({ code: 'common.err.forbidden' });
    await expect(system.bus.request(subjects.linksGet, { id: link.id }, apiKey(merchant))).resolves.toMatchObject({
      status: 'pending',
    });
  });

  it("lets a cashier key cancel its own shop's links only", async () => {
    const otherShop = await system.createShop(merchant);
    const own = await newLink();
    const foreign = await system.createLink(apiKey(merchant), { shop_id: otherShop });
    await expect(cancel(own.id, cashier(merchant, shopId))).resolves.toMatchObject({ status: 'canceled' });
    await expect(cancel(foreign.id, cashier(merchant, shopId))).rejects.toMatchObject({ code: 'common.err.forbidden' });
  });

  it('answers 409 for a link whose lifetime has elapsed, which reads as expired', async () => {
    const link = await newLink();
    await system.linksDb.query(
      "UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = $1",
      [link.id],
    );
    await expect(cancel(link.id)).rejects.toMatchObject({
      code: 'payment_link.err.not_pending',
      message: 'Payment link is expired, not pending',
    });
  });
});
