import { randomUUID } from 'node:crypto';
import { eventually } from '@pl/testing';
import { apiKey, startLinksSystem, type LinksSystem } from './support/links-system';

describe('expiry sweeper', () => {
  let system: LinksSystem;
  const merchant = randomUUID();

  beforeAll(async () => {
    system = await startLinksSystem('linkssweep', { EXPIRY_SWEEP_INTERVAL_MS: '50', EXPIRY_SWEEP_BATCH_SIZE: '2' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('expires due pending links that nobody reads, in batches, and leaves the others alone', async () => {
    const shopId = await system.createShop(merchant);
    const links = await Promise.all(Array.from({ length: 7 }, () => system.createLink(apiKey(merchant), { shop_id: shopId })));
    const due = links.slice(0, 5).map((l) => l.id);
    await system.linksDb.query(
      "UPDATE payment_links SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])",
      [due],
    );
    // Straight from the table: an API read would expire the links itself.
    const statuses = () =>
      system.linksDb.query<{ id: string; status: string }>('SELECT id, status FROM payment_links WHERE merchant_id = $1', [merchant]);
    await eventually(
      async () => (await statuses()).every((r) => !due.includes(r.id) || r.status === 'expired'),
      'the sweeper expires the due links',
      10_000,
      25,
    );
    for (const row of await statuses()) expect(row.status).toBe(due.includes(row.id) ? 'expired' : 'pending');
  });
});
