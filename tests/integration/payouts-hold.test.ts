import { expectError } from '../support/http';
import { verifyLedger } from '../support/money';
import { sandboxPaymentId, startSystem, type TestSystem } from '../support/system';

/**
 * docs/payouts.md at its default hold and cool-down (24 hours each; the test systems' default hold is 0): a fresh credit is pending, not available; a
 * payout may not take it, a refund may; a new destination is pending until its cool-down ends.
 */

jest.setTimeout(120_000);

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({ env: { PAYOUT_HOLD_HOURS: '24', PAYOUT_DESTINATION_COOLDOWN_HOURS: '24' } });
}, 90_000);
afterAll(async () => {
  if (!sys) return;
  const verified = await verifyLedger(sys);
  expect({ unbalanced: verified.unbalanced, balances_mismatched: verified.balances_mismatched }).toEqual({ unbalanced: 0, balances_mismatched: 0 });
  await sys.stop();
});

const BANK = { recipient_name: 'ИП Иванов', inn: '500100732259', bik: '044525225', account: '40802810538000005678' };

it('keeps a fresh credit pending and a new destination in its cool-down; a refund still takes the whole balance', async () => {
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  const auth = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const link = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '500.00' }, { headers: merchant.keys });
  expect((await sys.providerCallback(sandboxPaymentId(link.body.id as string), 'paid')).status).toBe(200);

  const balance = await sys.http.get(`/merchant/v1/balance?shop_id=${shop.id}`, { headers: merchant.keys });
  expect(balance.body).toMatchObject({ balance: '500.00', available: '0.00', pending: '500.00' });

  const made = await sys.http.post('/api/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: auth });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ status: 'pending', masked: '•••• 5678' });
  expect(Date.parse(made.body.active_at as string) - Date.parse(made.body.created_at as string)).toBe(24 * 3600 * 1000);
  const destinationId = made.body.id as string;
  const payout = () => sys.http.post('/api/v1/payouts', { shop_id: shop.id, amount: '100.00', destination_id: destinationId }, { headers: auth });
  expectError(await payout(), 422, 'payout.err.destination_not_active');

  // The cool-down is read from created_at: a destination added 25 hours ago is active, with no job to move it.
  await sys.sql(`UPDATE gateway.payout_destinations SET created_at = now() - interval '25 hours' WHERE id = $1`, [destinationId]);
  expect((await sys.http.get(`/api/v1/payout-destinations/${destinationId}`, { headers: auth })).body.status).toBe('active');
  expectError(await payout(), 422, 'payout.err.insufficient_available');

  const refund = await sys.http.post(
    `/merchant/v1/payment-links/${link.body.id as string}/refunds`,
    { amount: '500.00' },
    { headers: merchant.keys },
  );
  expect(refund.status).toBe(201);
});
