// Callbacks of both live providers refused or accepted over real HTTP to the gateway, across the real links, shops and
// notifier, Postgres, NATS and Kafka, with the real adapters and their local fakes (docs/providers.md, "Callbacks: the
// rules for both providers"). The gateway sits behind a proxy at 127.0.0.1 (TRUSTED_PROXIES) and takes callbacks only
// from the documented senders (RAIFFEISEN_CALLBACK_IPS=193.28.44.23, HELEKET_CALLBACK_IPS=31.133.220.8):
// - forged (a wrong signature, or a signed body altered): 401 common.err.unauthorized, nothing changed, counted as
//   refused `signature`;
// - foreign (a sender outside the allowlist: named by the proxy, straight to the gateway, or written into
//   X-Forwarded-For by a client the proxy does not vouch for): 401, nothing changed, counted as refused `address`;
// - the genuine callback through the proxy pays the link; replayed byte for byte it is answered 200 again (both
//   providers retry anything else) and changes nothing: one event, one posting, one webhook;
// - rate limits never refuse a callback from an allowed address: the failed-authentication budget per address is 1
//   here, and the sender's own forged callbacks before it leave its genuine one answered.
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { RAIFFEISEN_FAKE_SIGNATURE_HEADER } from '@pl/provider-fakes';
import { expectError, type ApiResponse } from '../support/http';
import { scrapedSum } from '../support/metrics';
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

const RAIFFEISEN_IP = '193.28.44.23';
const HELEKET_IP = '31.133.220.8';
const STRANGER_IP = '203.0.113.9';

let sys: TestSystem;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  [sys, receiver] = await Promise.all([
    startSystem({
      providerFakes: true,
      env: {
        RAIFFEISEN_CALLBACK_IPS: RAIFFEISEN_IP,
        HELEKET_CALLBACK_IPS: HELEKET_IP,
        TRUSTED_PROXIES: '127.0.0.1',
        RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE: '1',
      },
    }),
    WebhookReceiver.start(),
  ]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { webhookUrl: receiver.url });
});
afterAll(async () => {
  await receiver?.close();
  await sys?.stop();
});
afterEach(() => {
  sys.fakes.raiffeisen.callbackMode = 'deliver';
});

const liveLink = (amount: string): Promise<string> => createLiveLink(sys, merchant, shop, amount, 'cb');

/** A callback as the proxy in front of the gateway forwards it: from 127.0.0.1, naming the sender in X-Forwarded-For. */
const viaProxy = (path: string, body: string, headers: Record<string, string>, forwardedFor: string): Promise<ApiResponse> =>
  sys.http.post(path, body, { headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor, ...headers } });

/** A callback straight from 127.0.0.2, a machine the gateway does not take as a proxy, whatever it writes in X-Forwarded-For. */
const fromStranger = (path: string, body: string, headers: Record<string, string>, forwardedFor: string) =>
  new Promise<{ status: number; json: { error?: { code?: string } } }>((resolve, reject) => {
    const url = new URL(sys.baseUrl + path);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: '127.0.0.2',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

/** Everything a callback could change about a link, for "nothing changed". */
async function stateOf(id: string): Promise<unknown> {
  const link = (await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body;
  return {
    link,
    attempts: await sys.sql(
      'SELECT n, state, provider_status, payment_status, updated_at FROM links.payment_attempts WHERE link_id = $1 ORDER BY n',
      [id],
    ),
    outbox: await sys.sql("SELECT payload->>'event' AS event FROM links.outbox WHERE message_key = $1 ORDER BY created_at, id", [id]),
    postings: await sys.sql('SELECT type, amount FROM links.ledger_transactions WHERE payment_link_id = $1 ORDER BY created_at', [id]),
    unresolved: await sys.sql('SELECT reason FROM links.unresolved_payments WHERE link_id = $1', [id]),
  };
}

const refused = (provider: string, reason: string) =>
  scrapedSum(sys.gatewayOpsPort, 'provider_callbacks_total', { provider, outcome: 'refused', reason });
const verified = (provider: string) => scrapedSum(sys.gatewayOpsPort, 'provider_callbacks_total', { provider, outcome: 'verified' });

async function expectPaidOnce(id: string, gatewayPaymentId: string): Promise<void> {
  expect(await stateOf(id)).toMatchObject({
    link: { status: 'paid', gateway_payment_id: gatewayPaymentId },
    attempts: [{ n: 1, state: 'paid' }],
    outbox: [{ event: 'payment.succeeded' }],
    postings: [{ type: 'payment' }],
    unresolved: [],
  });
  expect(receiver.hits.filter((h) => h.json?.data?.payment_link_id === id).map((h) => h.json.event)).toEqual(['payment.succeeded']);
}

describe('Raiffeisen SBP callbacks', () => {
  const PATH = '/callbacks/v1/raiffeisen-sbp';

  it('refuses forged and foreign notifications with 401 and changes nothing; the genuine one pays once, and its replay is 200 with no second effect', async () => {
    const id = await liveLink('1000.50');
    expect((await sys.http.post(`/p/${id}/select`, { method: 'sbp' })).status).toBe(200);
    const qrId = sys.fakes.raiffeisen.qrOf(`${id}-1`)!.qrId;
    const before = await stateOf(id);
    const [addressBefore, signatureBefore, verifiedBefore] = [
      await refused('raiffeisen_sbp', 'address'),
      await refused('raiffeisen_sbp', 'signature'),
      await verified('raiffeisen_sbp'),
    ];

    // The bank's own delivery, straight from 127.0.0.1 (the proxy's address, not the bank's): refused.
    // The bank writes the amount as `1000.50`; the signature is over that text.
    const [direct] = await sys.fakes.raiffeisen.pay(qrId, { amountText: '1000.50' });
    expect(direct?.status).toBe(401);
    // The same notification, with its signature, for the test to send itself.
    sys.fakes.raiffeisen.callbackMode = 'hold';
    await sys.fakes.raiffeisen.redeliver(qrId);
    const [genuine] = sys.fakes.raiffeisen.notifier.held.splice(0);
    if (!genuine) throw new Error('no notification held');
    expect(genuine.body).toContain('"amount":1000.50,');
    const signed = { [RAIFFEISEN_FAKE_SIGNATURE_HEADER]: genuine.signature };

    // Forged: another key's signature; the genuine signature over an altered amount; no signature at all.
    const { transactionDate } = JSON.parse(genuine.body) as { transactionDate: string };
    const signedString = `1000.50|${sys.env.RAIFFEISEN_SBP_MERCHANT_ID}|${id}-1|SUCCESS|${transactionDate}`;
    expect(
      createHmac('sha256', sys.env.RAIFFEISEN_SECRET_KEY ?? '')
        .update(signedString)
        .digest('hex'),
    ).toBe(genuine.signature);
    const otherKey = createHmac('sha256', 'not-the-secret-key').update(signedString).digest('hex');
    expectError(await viaProxy(PATH, genuine.body, { [RAIFFEISEN_FAKE_SIGNATURE_HEADER]: otherKey }, RAIFFEISEN_IP), 401, 'common.err.unauthorized');
    const altered = genuine.body.replace('"amount":1000.50,', '"amount":1000.5,');
    expect(altered).not.toBe(genuine.body);
    expectError(await viaProxy(PATH, altered, signed, RAIFFEISEN_IP), 401, 'common.err.unauthorized');
    expectError(await viaProxy(PATH, genuine.body, {}, RAIFFEISEN_IP), 401, 'common.err.unauthorized');
    expect(await refused('raiffeisen_sbp', 'signature')).toBe(signatureBefore + 3);

    // Foreign: a sender the proxy names outside the allowlist; the bank's address written by the client before the
    // proxy appended the real one; the bank's address claimed by a machine that is not the proxy.
    expectError(await viaProxy(PATH, genuine.body, signed, STRANGER_IP), 401, 'common.err.unauthorized');
    expectError(await viaProxy(PATH, genuine.body, signed, `${RAIFFEISEN_IP}, ${STRANGER_IP}`), 401, 'common.err.unauthorized');
    const stranger = await fromStranger(PATH, genuine.body, signed, RAIFFEISEN_IP);
    expect({ status: stranger.status, code: stranger.json.error?.code }).toEqual({ status: 401, code: 'common.err.unauthorized' });
    // The Heleket address is no Raiffeisen sender either.
    expectError(await viaProxy(PATH, genuine.body, signed, HELEKET_IP), 401, 'common.err.unauthorized');
    expect(await refused('raiffeisen_sbp', 'address')).toBe(addressBefore + 1 + 4);

    expect(await stateOf(id)).toEqual(before);
    expect(await verified('raiffeisen_sbp')).toBe(verifiedBefore);

    // The genuine notification from the bank's address through the proxy: paid, once.
    const succeeded = receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
    const accepted = await viaProxy(PATH, genuine.body, signed, RAIFFEISEN_IP);
    expect({ status: accepted.status, body: accepted.body }).toEqual({ status: 200, body: { received: true } });
    expect((await succeeded).json.data).toMatchObject({ status: 'paid', amount: '1000.50' });
    await expectPaidOnce(id, qrId);
    const paid = await stateOf(id);

    // Replayed, twice (the bank retries until it hears 200): 200 each time, nothing new.
    for (let i = 0; i < 2; i += 1) {
      const again = await viaProxy(PATH, genuine.body, signed, RAIFFEISEN_IP);
      expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { received: true } });
    }
    expect(await stateOf(id)).toEqual(paid);
    await expectPaidOnce(id, qrId);
    expect(await verified('raiffeisen_sbp')).toBe(verifiedBefore + 3);
  });
});

describe('Heleket callbacks', () => {
  const PATH = '/callbacks/v1/heleket';

  it('refuses forged and foreign callbacks with 401 and changes nothing; the genuine one pays once, and its replay is 200 with no second effect', async () => {
    const id = await liveLink('2500.00');
    expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' })).status).toBe(200);
    const uuid = sys.fakes.heleket.invoiceByOrder(`${id}-1`)!.uuid;
    const before = await stateOf(id);
    const [addressBefore, signatureBefore, verifiedBefore] = [
      await refused('heleket', 'address'),
      await refused('heleket', 'signature'),
      await verified('heleket'),
    ];

    // Heleket's own delivery, straight from 127.0.0.1: refused; its bytes are the genuine callback.
    const sent = sys.fakes.heleket.deliveries.length;
    sys.fakes.heleket.pay(uuid);
    const [direct] = (await sys.fakes.heleket.deliveriesReach(sent + 1)).slice(sent);
    expect(direct?.answer).toBe(401);
    const genuine = direct!.body;
    expect(genuine).toMatch(/"status":"paid".*"sign":"[0-9a-f]{32}"\}$/);

    // Forged: another signature; a signed body altered (the status), its sign kept; no sign at all.
    const otherSign = genuine.replace(/"sign":"[0-9a-f]{32}"/, `"sign":"${'0'.repeat(32)}"`);
    expectError(await viaProxy(PATH, otherSign, {}, HELEKET_IP), 401, 'common.err.unauthorized');
    const altered = genuine.replace(`"amount":"2500.00"`, `"amount":"25000.00"`);
    expect(altered).not.toBe(genuine);
    expectError(await viaProxy(PATH, altered, {}, HELEKET_IP), 401, 'common.err.unauthorized');
    const unsigned = genuine.replace(/,"sign":"[0-9a-f]{32}"/, '');
    expectError(await viaProxy(PATH, unsigned, {}, HELEKET_IP), 401, 'common.err.unauthorized');
    expect(await refused('heleket', 'signature')).toBe(signatureBefore + 3);

    // Foreign, as for Raiffeisen.
    expectError(await viaProxy(PATH, genuine, {}, STRANGER_IP), 401, 'common.err.unauthorized');
    expectError(await viaProxy(PATH, genuine, {}, `${HELEKET_IP}, ${STRANGER_IP}`), 401, 'common.err.unauthorized');
    const stranger = await fromStranger(PATH, genuine, {}, HELEKET_IP);
    expect({ status: stranger.status, code: stranger.json.error?.code }).toEqual({ status: 401, code: 'common.err.unauthorized' });
    expectError(await viaProxy(PATH, genuine, {}, RAIFFEISEN_IP), 401, 'common.err.unauthorized');
    expect(await refused('heleket', 'address')).toBe(addressBefore + 1 + 4);

    expect(await stateOf(id)).toEqual(before);
    expect(await verified('heleket')).toBe(verifiedBefore);

    const succeeded = receiver.waitFor((h) => h.json?.event === 'payment.succeeded' && h.json?.data?.payment_link_id === id);
    const accepted = await viaProxy(PATH, genuine, {}, HELEKET_IP);
    expect({ status: accepted.status, body: accepted.body }).toEqual({ status: 200, body: { received: true } });
    expect((await succeeded).json.data).toMatchObject({ status: 'paid', amount: '2500.00' });
    await expectPaidOnce(id, uuid);
    const paid = await stateOf(id);

    // Replayed (same uuid and status): 200, nothing new.
    for (let i = 0; i < 2; i += 1) {
      const again = await viaProxy(PATH, genuine, {}, HELEKET_IP);
      expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { received: true } });
    }
    expect(await stateOf(id)).toEqual(paid);
    await expectPaidOnce(id, uuid);
    expect(await verified('heleket')).toBe(verifiedBefore + 3);
  });
});
