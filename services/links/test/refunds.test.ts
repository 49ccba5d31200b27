import { createHash, randomUUID } from 'node:crypto';
import {
  platformEvent,
  refund as refundSchema,
  subjects,
  type CreateRefundCommand,
  type CryptoNetwork,
  type IdempotencyClaim,
  type Identity,
  type IdempotentRefundReply,
  type PaymentLink,
  type Refund,
  type SettleRefundCommand,
} from '@pl/contracts';
import { renderOutcome, runCli } from '../../../tools/admin/src/cli';
import { apiKey, cashier, platform, startLinksSystem, testKey, type LinksSystem } from './support/links-system';

const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const ETH = '0xdAC17F958D2ee523a2206206994597C13D831ec7';

describe('refunds', () => {
  let system: LinksSystem;
  const merchant = randomUUID();
  let shopId: number;
  /** fee_payer client: the shop is credited the link's whole amount, so a full refund is covered by its own payment. */
  const newShop = (owner = merchant) => system.createShop(owner, { fee_payer: 'client', crypto_bps: 100, sbp_bps: 100 });

  /** A link of `who`'s mode, paid through the provider's path: with a crypto network or SBP selected, or none. */
  async function paidLink(who: Identity, shop: number, amount = 100_000, method: CryptoNetwork | 'SBP' | null = 'USDT-TRC20'): Promise<PaymentLink> {
    const link = await system.createLink(who, { shop_id: shop, amount_kopecks: amount });
    if (method !== null) {
      const select = method === 'SBP' ? { method: 'sbp' as const, network: null } : { method: 'crypto' as const, network: method };
      await system.bus.request(subjects.linksSelect, { id: link.id, ...select }, platform);
    }
    return system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status: 'paid' }, platform);
  }

  const refund = (linkId: string, over: Partial<CreateRefundCommand> = {}, who: Identity = apiKey(merchant)): Promise<IdempotentRefundReply> =>
    system.bus.request(subjects.refundsCreate, { payment_link_id: linkId, amount_kopecks: null, reason: null, destination: TRON, ...over }, who);
  const settle = (over: Partial<SettleRefundCommand>): Promise<Refund> =>
    system.bus.request(
      subjects.refundsSettle,
      { provider: null, gateway_refund_id: null, refund_id: null, status: 'succeeded', failure_reason: null, ...over },
      platform,
    );
  const getLink = (id: string, who: Identity = apiKey(merchant)): Promise<PaymentLink> => system.bus.request(subjects.linksGet, { id }, who);

  const balanceOf = async (shop: number, livemode = true) => {
    const rows = await system.linksDb.query<{ kind: string; balance: string }>(
      `SELECT kind, balance FROM ledger_accounts WHERE shop_id = $1 AND livemode = $2`,
      [shop, livemode],
    );
    const of = (kind: string) => Number(rows.find((r) => r.kind === kind)?.balance ?? 0);
    return { available: of('available'), reserve: of('refund_reserve') };
  };
  const linkSums = async (id: string) => {
    const [row] = await system.linksDb.query<{ refunded: string; pending: string }>(
      'SELECT amount_refunded AS refunded, amount_refund_pending AS pending FROM payment_links WHERE id = $1',
      [id],
    );
    return { refunded: Number(row?.refunded), pending: Number(row?.pending) };
  };
  const refundCount = async (linkId: string) =>
    Number((await system.linksDb.query<{ n: string }>('SELECT count(*) AS n FROM refunds WHERE payment_link_id = $1', [linkId]))[0]?.n);
  const refundEvents = (refundId: string) =>
    system.linksDb.query<{ payload: unknown; message_key: string }>(`SELECT payload, message_key FROM outbox WHERE payload->'data'->>'id' = $1`, [
      refundId,
    ]);
  const unbalancedTransactions = async () =>
    Number(
      (
        await system.linksDb.query<{ n: string }>(
          `SELECT count(*) AS n FROM (SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0) t`,
        )
      )[0]?.n,
    );

  beforeAll(async () => {
    system = await startLinksSystem('linksrefunds');
    shopId = await newShop();
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe('links.refunds.create', () => {
    it('refunds all that is refundable by default, pending with the sandbox id, reserving it from available in one posting', async () => {
      const link = await paidLink(apiKey(merchant), shopId, 100_000);
      const before = await balanceOf(shopId);
      const { refund: created, replayed } = await refund(link.id, { reason: 'Returned goods' });
      expect(refundSchema.parse(created)).toEqual(created);
      expect(replayed).toBe(false);
      expect(created).toMatchObject({
        payment_link_id: link.id,
        shop_id: shopId,
        amount: '1000.00',
        currency: 'RUB',
        status: 'pending',
        reason: 'Returned goods',
        destination: TRON,
        gateway_refund_id: `sbr_${created.id}`,
        failure_reason: null,
        livemode: true,
      });
      expect(await balanceOf(shopId)).toEqual({ available: before.available - 100_000, reserve: before.reserve + 100_000 });
      expect(await linkSums(link.id)).toEqual({ refunded: 0, pending: 100_000 });
      const [posting] = await system.linksDb.query<{ type: string; amount: string; fee: string; net: string }>(
        'SELECT type, amount, fee, net FROM ledger_transactions WHERE refund_id = $1',
        [created.id],
      );
      expect(posting).toEqual({ type: 'refund', amount: '-100000', fee: '0', net: '-100000' });
      // Pending refunds are not refunded yet: the link reads 0.00 and stays paid.
      await expect(getLink(link.id)).resolves.toMatchObject({ status: 'paid', amount_refunded: '0.00' });
    });

    it('takes partial refunds up to the amount and refuses more with 422 amount_exceeds_refundable', async () => {
      const link = await paidLink(apiKey(merchant), shopId, 100_000);
      await refund(link.id, { amount_kopecks: 60_000 });
      await expect(refund(link.id, { amount_kopecks: 40_001 })).rejects.toMatchObject({ code: 'refund.err.amount_exceeds_refundable' });
      await expect(refund(link.id, { amount_kopecks: 40_000 })).resolves.toMatchObject({ refund: { amount: '400.00' } });
      await expect(refund(link.id)).rejects.toMatchObject({ code: 'refund.err.amount_exceeds_refundable' });
      expect(await linkSums(link.id)).toEqual({ refunded: 0, pending: 100_000 });
    });

    it('refuses a refund the shop balance cannot cover with 422 insufficient_balance, writing nothing', async () => {
      // fee_payer merchant: the shop was credited 990.00 of the 1000.00 the buyer paid, and the buyer gets the amount back.
      const shop = await system.createShop(merchant, { fee_payer: 'merchant', crypto_bps: 100 });
      const link = await paidLink(apiKey(merchant), shop, 100_000);
      expect(await balanceOf(shop)).toEqual({ available: 99_000, reserve: 0 });
      await expect(refund(link.id)).rejects.toMatchObject({ code: 'refund.err.insufficient_balance' });
      expect(await refundCount(link.id)).toBe(0);
      expect(await linkSums(link.id)).toEqual({ refunded: 0, pending: 0 });
      expect(await balanceOf(shop)).toEqual({ available: 99_000, reserve: 0 });
      await expect(refund(link.id, { amount_kopecks: 99_000 })).resolves.toMatchObject({ refund: { amount: '990.00' } });
      expect(await balanceOf(shop)).toEqual({ available: 0, reserve: 99_000 });
    });

    it('checks in the order of the decisions: link 404 → ownership 403 → destination 400 → not paid 409 → refundable 422 → balance 422', async () => {
      const stranger = randomUUID();
      // Unknown link, even with a bad destination: 404.
      await expect(refund(randomUUID(), { destination: 'nope' })).rejects.toMatchObject({ code: 'common.err.not_found' });
      // Another merchant's paid link with a bad destination: 403 first.
      const link = await paidLink(apiKey(merchant), shopId, 10_000);
      await expect(refund(link.id, { destination: 'nope' }, apiKey(stranger))).rejects.toMatchObject({ code: 'common.err.forbidden' });
      // A cashier key of another shop of the merchant: 403.
      const otherShop = await newShop();
      await expect(refund(link.id, { destination: 'nope' }, cashier(merchant, otherShop))).rejects.toMatchObject({ code: 'common.err.forbidden' });
      // A pending link on a crypto network with a bad destination: 400 before 409.
      const pending = await system.createLink(apiKey(merchant), { shop_id: shopId, amount_kopecks: 10_000 });
      await system.bus.request(subjects.linksSelect, { id: pending.id, method: 'crypto', network: 'USDT-TRC20' }, platform);
      await expect(refund(pending.id, { destination: 'nope' })).rejects.toMatchObject({ code: 'common.err.validation_failed' });
      await expect(refund(pending.id)).rejects.toMatchObject({ code: 'payment_link.err.not_paid' });
      // Over refundable (422 amount) is judged before the balance (422 balance): this one would fail both.
      const poor = await system.createShop(merchant, { fee_payer: 'merchant', crypto_bps: 100 });
      const poorLink = await paidLink(apiKey(merchant), poor, 10_000);
      await expect(refund(poorLink.id, { amount_kopecks: 10_001 })).rejects.toMatchObject({ code: 'refund.err.amount_exceeds_refundable' });
      await expect(refund(poorLink.id, { amount_kopecks: 10_000 })).rejects.toMatchObject({ code: 'refund.err.insufficient_balance' });
      // The cashier key of the link's own shop may refund it.
      await expect(refund(link.id, {}, cashier(merchant, shopId))).resolves.toMatchObject({ refund: { amount: '100.00' } });
    });

    it.each([
      ['USDT-TRC20', TRON, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
      ['USDT-ERC20', ETH, '0xdAC17F958D2ee523a2206206994597C13D831eC7'],
      ['ETH-ETH', ETH.toLowerCase(), '0x' + 'g'.repeat(40)],
      ['USDT-TON', 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N', 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2M'],
      ['TON-TON', `0:${'ab'.repeat(32)}`, `1:${'ab'.repeat(32)}`],
      ['BTC-BTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr'],
    ] as const)('refunds a %s link to a valid address of its network and refuses a wrong one with 400', async (network, good, bad) => {
      const link = await paidLink(apiKey(merchant), shopId, 10_000, network);
      await expect(refund(link.id, { destination: bad })).rejects.toMatchObject({
        code: 'common.err.validation_failed',
        details: [{ field: 'destination' }],
      });
      await expect(refund(link.id, { destination: null })).rejects.toMatchObject({ code: 'common.err.validation_failed' });
      // Another network's valid address is not this network's.
      await expect(refund(link.id, { destination: network === 'BTC-BTC' ? TRON : '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' })).rejects.toMatchObject({
        code: 'common.err.validation_failed',
      });
      await expect(refund(link.id, { destination: good })).resolves.toMatchObject({ refund: { destination: good } });
    });

    it.each([
      ['SBP', 'SBP'],
      ['no method selected', null],
    ] as const)('refunds a %s link through the provider, and refuses a destination for it with 400', async (_label, method) => {
      const link = await paidLink(apiKey(merchant), shopId, 10_000, method);
      await expect(refund(link.id, { destination: TRON })).rejects.toMatchObject({
        code: 'common.err.validation_failed',
        details: [{ field: 'destination' }],
      });
      await expect(refund(link.id, { destination: null })).resolves.toMatchObject({ refund: { destination: null, status: 'pending' } });
    });

    it('never lets 50 parallel refunds of one link pass its amount (nor the balance below zero)', async () => {
      const shop = await newShop();
      const link = await paidLink(apiKey(merchant), shop, 100_000);
      // 50 × 30.00 asked of 1000.00: exactly 33 fit.
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => refund(link.id, { amount_kopecks: 3_000 })));
      const created = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(created).toHaveLength(33);
      expect(new Set(refused.map((r) => (r.reason as { code: string }).code))).toEqual(new Set(['refund.err.amount_exceeds_refundable']));
      const [sums] = await system.linksDb.query<{ n: string; total: string; pending: string }>(
        `SELECT count(*) AS n, sum(r.amount) AS total, max(l.amount_refund_pending) AS pending
           FROM refunds r JOIN payment_links l ON l.id = r.payment_link_id WHERE r.payment_link_id = $1`,
        [link.id],
      );
      expect(sums).toEqual({ n: '33', total: '99000', pending: '99000' });
      expect(await balanceOf(shop)).toEqual({ available: 1_000, reserve: 99_000 });
    });

    it("never lets 50 parallel refunds across one shop's links take its balance below zero", async () => {
      // fee_payer merchant: 5 links of 200.00 credit 198.00 each (990.00); 10 refunds of 20.00 fit each link's 200.00.
      const shop = await system.createShop(merchant, { fee_payer: 'merchant', crypto_bps: 100 });
      const links = await Promise.all(Array.from({ length: 5 }, () => paidLink(apiKey(merchant), shop, 20_000)));
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => refund(links[i % links.length]?.id ?? '', { amount_kopecks: 2_000 })),
      );
      const created = results.filter((r) => r.status === 'fulfilled');
      // The balance is the limit: 990.00 / 20.00 = 49 refunds.
      expect(created).toHaveLength(49);
      const codes = new Set(
        results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as { code: string }).code),
      );
      expect(codes).toEqual(new Set(['refund.err.insufficient_balance']));
      const [{ total } = { total: '' }] = await system.linksDb.query<{ total: string }>(
        'SELECT sum(amount) AS total FROM refunds WHERE shop_id = $1',
        [shop],
      );
      expect(Number(total)).toBe(98_000);
      expect(await balanceOf(shop)).toEqual({ available: 1_000, reserve: 98_000 });
      const [{ negative } = { negative: '' }] = await system.linksDb.query<{ negative: string }>(
        'SELECT count(*) AS negative FROM ledger_accounts WHERE balance < 0',
      );
      expect(negative).toBe('0');
      expect(await unbalancedTransactions()).toBe(0);
    });
  });

  describe('Idempotency-Key', () => {
    const claim = (key: string, body: object): IdempotencyClaim => ({
      route: 'merchant-v1-refund',
      key_sha256: createHash('sha256').update(key).digest('hex'),
      fingerprint: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
    });

    it('answers a repeat with the kept refund (replayed) and another body with 409, creating one refund', async () => {
      const link = await paidLink(apiKey(merchant), shopId, 10_000);
      const key = randomUUID();
      const first = await refund(link.id, { amount_kopecks: 1_000, idempotency: claim(key, { amount: 1_000 }) });
      const again = await refund(link.id, { amount_kopecks: 1_000, idempotency: claim(key, { amount: 1_000 }) });
      expect(again).toEqual({ refund: first.refund, replayed: true });
      await expect(refund(link.id, { amount_kopecks: 2_000, idempotency: claim(key, { amount: 2_000 }) })).rejects.toMatchObject({
        code: 'common.err.idempotency_conflict',
      });
      expect(await refundCount(link.id)).toBe(1);
    });

    it('gives 20 concurrent retries of one key one refund, even when it takes all that is refundable', async () => {
      const link = await paidLink(apiKey(merchant), shopId, 10_000);
      const idempotency = claim(randomUUID(), { all: true });
      const answers = await Promise.all(Array.from({ length: 20 }, () => refund(link.id, { idempotency })));
      expect(new Set(answers.map((a) => a.refund.id)).size).toBe(1);
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      expect(await refundCount(link.id)).toBe(1);
      expect(await linkSums(link.id)).toEqual({ refunded: 0, pending: 10_000 });
    });

    it('keeps nothing for a refused refund, so its retry is judged anew', async () => {
      const shop = await system.createShop(merchant, { fee_payer: 'merchant', crypto_bps: 100 });
      const link = await paidLink(apiKey(merchant), shop, 10_000);
      const idempotency = claim(randomUUID(), { all: true });
      await expect(refund(link.id, { idempotency })).rejects.toMatchObject({ code: 'refund.err.insufficient_balance' });
      await paidLink(apiKey(merchant), shop, 10_000);
      await expect(refund(link.id, { idempotency })).resolves.toMatchObject({ replayed: false, refund: { amount: '100.00' } });
    });
  });

  describe('links.refunds.settle', () => {
    it('settles succeeded by the provider id: reserve to clearing, amount_refunded, one refund.succeeded in the outbox', async () => {
      const shop = await newShop();
      const link = await paidLink(apiKey(merchant), shop, 50_000);
      const { refund: created } = await refund(link.id, { amount_kopecks: 20_000 });
      const settled = await settle({ provider: 'sandbox', gateway_refund_id: created.gateway_refund_id, status: 'succeeded' });
      expect(settled).toMatchObject({ id: created.id, status: 'succeeded', failure_reason: null, created_at: created.created_at });
      expect(await balanceOf(shop)).toEqual({ available: 30_000, reserve: 0 });
      expect(await linkSums(link.id)).toEqual({ refunded: 20_000, pending: 0 });
      await expect(getLink(link.id)).resolves.toMatchObject({ status: 'paid', amount_refunded: '200.00' });
      const [clearing] = await system.linksDb.query<{ type: string; amount: string }>(
        `SELECT t.type, e.amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
           JOIN ledger_accounts a ON a.id = e.account_id WHERE t.refund_id = $1 AND a.kind = 'clearing'`,
        [created.id],
      );
      expect(clearing).toEqual({ type: 'refund_succeeded', amount: '20000' });

      const events = await refundEvents(created.id);
      expect(events).toHaveLength(1);
      const event = platformEvent.parse(events[0]?.payload);
      expect(event).toMatchObject({ event: 'refund.succeeded', merchant_id: merchant, livemode: true, data: settled });
      expect(events[0]?.message_key).toBe(link.id);

      // A duplicate callback is harmless: the same refund, no second posting or event; the other status is 409.
      await expect(settle({ provider: 'sandbox', gateway_refund_id: created.gateway_refund_id, status: 'succeeded' })).resolves.toEqual(settled);
      await expect(settle({ refund_id: created.id, status: 'failed' })).rejects.toMatchObject({ code: 'refund.err.not_pending' });
      expect(await refundEvents(created.id)).toHaveLength(1);
      const [{ n } = { n: '' }] = await system.linksDb.query<{ n: string }>('SELECT count(*) AS n FROM ledger_transactions WHERE refund_id = $1', [
        created.id,
      ]);
      expect(n).toBe('2');
      expect(await balanceOf(shop)).toEqual({ available: 30_000, reserve: 0 });
    });

    it('settles failed by refund id: the reserve returns to available, the link may be refunded again, refund.failed written', async () => {
      const shop = await newShop();
      const link = await paidLink(apiKey(merchant), shop, 50_000);
      const { refund: created } = await refund(link.id);
      const failed = await settle({ refund_id: created.id, status: 'failed', failure_reason: 'Address rejected' });
      expect(failed).toMatchObject({ status: 'failed', failure_reason: 'Address rejected' });
      expect(await balanceOf(shop)).toEqual({ available: 50_000, reserve: 0 });
      expect(await linkSums(link.id)).toEqual({ refunded: 0, pending: 0 });
      const [posting] = await system.linksDb.query<{ type: string; amount: string; net: string; balance_after: string }>(
        `SELECT type, amount, net, balance_after FROM ledger_transactions WHERE refund_id = $1 AND type = 'refund_failed'`,
        [created.id],
      );
      expect(posting).toEqual({ type: 'refund_failed', amount: '50000', net: '50000', balance_after: '50000' });
      expect((await refundEvents(created.id)).map((e) => platformEvent.parse(e.payload).event)).toEqual(['refund.failed']);
      await expect(settle({ refund_id: created.id, status: 'failed' })).resolves.toEqual(failed);
      await expect(settle({ refund_id: created.id, status: 'succeeded' })).rejects.toMatchObject({ code: 'refund.err.not_pending' });
      await expect(refund(link.id)).resolves.toMatchObject({ refund: { amount: '500.00' } });
    });

    it("keeps a provider's failure_reason, made safe for display: one line, no controls, no bidi, at most 500 characters", async () => {
      const shop = await newShop();
      const cases: [string, string | null][] = [
        ['Card closed\nby the bank', 'Card closed by the bank'],
        ['  Refused\r\n\tcode 51\u0000 ', 'Refused code 51'],
        ['\u202eevil\u2066', 'evil'],
        ['bad \ud800 half', 'bad \ufffd half'],
        ['\n\u0007 \t', null],
        ['я'.repeat(1200), 'я'.repeat(500)],
      ];
      for (const [sent, kept] of cases) {
        const link = await paidLink(apiKey(merchant), shop, 1_000);
        const { refund: created } = await refund(link.id);
        const failed = await settle({ refund_id: created.id, status: 'failed', failure_reason: sent });
        expect({ sent, status: failed.status, reason: failed.failure_reason }).toEqual({ sent, status: 'failed', reason: kept });
      }
    });

    it('settles 20 concurrent duplicate callbacks once', async () => {
      const shop = await newShop();
      const link = await paidLink(apiKey(merchant), shop, 50_000);
      const { refund: created } = await refund(link.id);
      const answers = await Promise.all(Array.from({ length: 20 }, () => settle({ refund_id: created.id, status: 'succeeded' })));
      expect(new Set(answers.map((a) => a.updated_at)).size).toBe(1);
      expect(await refundEvents(created.id)).toHaveLength(1);
      expect(await linkSums(link.id)).toEqual({ refunded: 50_000, pending: 0 });
      expect(await unbalancedTransactions()).toBe(0);
    });

    describe('npm run admin -- refund:settle', () => {
      // The identity secret of startLinksSystem: the operator's CLI signs its service identity with the deployment's.
      const busEnv = () => ({
        DATABASE_URL: system.databaseUrl,
        NATS_URL: 'nats://127.0.0.1:4222',
        BUS_NAMESPACE: system.namespace,
        IDENTITY_TOKEN_SECRET: 'links-component-test-identity-secret-0123456789',
      });
      const admin = async (args: string[]) => {
        const io = { readStdin: () => Promise.resolve(''), warn: () => undefined };
        const out = renderOutcome(await runCli(['refund:settle', ...args], busEnv(), io));
        return { code: out.exitCode, result: out.stdout ? (JSON.parse(out.stdout) as Refund) : null, stderr: out.stderr };
      };

      it('settles a pending refund through links.refunds.settle, its reason kept, a repeat harmless, the other status 409', async () => {
        const shop = await newShop();
        const link = await paidLink(apiKey(merchant), shop, 30_000);
        const { refund: created } = await refund(link.id);
        const failed = await admin(['--refund', created.id.toUpperCase(), '--status', 'failed', '--reason', 'Wallet closed']);
        expect(failed).toMatchObject({ code: 0, result: { id: created.id, status: 'failed', failure_reason: 'Wallet closed' } });
        expect(await balanceOf(shop)).toEqual({ available: 30_000, reserve: 0 });
        expect((await refundEvents(created.id)).map((e) => platformEvent.parse(e.payload).event)).toEqual(['refund.failed']);
        await expect(admin(['--refund', created.id, '--status', 'failed'])).resolves.toMatchObject({ code: 0, result: failed.result });
        const conflict = await admin(['--refund', created.id, '--status', 'succeeded']);
        expect(conflict.code).toBe(1);
        expect(conflict.stderr).toContain('refund.err.not_pending');
      });

      it.each([
        [['--refund', 'nope', '--status', 'failed']],
        [['--refund', randomUUID(), '--status', 'refunded']],
        [['--refund', randomUUID(), '--status', 'succeeded', '--reason', 'x']],
      ])('refuses bad flags %j with exit 2', async (args) => {
        expect((await admin(args)).code).toBe(2);
      });
    });

    it('is for platform services only, and 404 for an unknown refund', async () => {
      await expect(
        system.bus.request(
          subjects.refundsSettle,
          { provider: null, gateway_refund_id: null, refund_id: randomUUID(), status: 'succeeded', failure_reason: null },
          apiKey(merchant),
        ),
      ).rejects.toMatchObject({ code: 'common.err.forbidden' });
      await expect(settle({ refund_id: randomUUID() })).rejects.toMatchObject({ code: 'common.err.not_found' });
      await expect(settle({ provider: 'sandbox', gateway_refund_id: 'sbr_nothing' })).rejects.toMatchObject({ code: 'common.err.not_found' });
      await expect(settle({})).rejects.toMatchObject({ code: 'common.err.validation_failed' });
    });
  });

  describe('test mode', () => {
    const testMerchant = randomUUID();
    let testShop: number;
    beforeAll(async () => {
      testShop = await newShop(testMerchant);
    });
    const simulate = (id: string, status: 'succeeded' | 'failed', who: Identity = testKey(testMerchant)): Promise<Refund> =>
      system.bus.request(subjects.refundsSimulate, { id, status }, who);

    it('keeps test refunds and balances apart from live ones', async () => {
      const liveLink = await paidLink(apiKey(testMerchant), testShop, 10_000);
      const testLink = await paidLink(testKey(testMerchant), testShop, 20_000);
      const live = (await refund(liveLink.id, {}, apiKey(testMerchant))).refund;
      const test = (await refund(testLink.id, {}, testKey(testMerchant))).refund;
      expect(test.livemode).toBe(false);
      expect(await balanceOf(testShop, true)).toEqual({ available: 0, reserve: 10_000 });
      expect(await balanceOf(testShop, false)).toEqual({ available: 0, reserve: 20_000 });
      // The other mode's link and refund are not found.
      await expect(refund(testLink.id, {}, apiKey(testMerchant))).rejects.toMatchObject({ code: 'common.err.not_found' });
      await expect(system.bus.request(subjects.refundsGet, { id: test.id }, apiKey(testMerchant))).rejects.toMatchObject({
        code: 'common.err.not_found',
      });
      await expect(system.bus.request(subjects.refundsGet, { id: live.id }, testKey(testMerchant))).rejects.toMatchObject({
        code: 'common.err.not_found',
      });
      await expect(system.bus.request(subjects.refundsGet, { id: test.id }, testKey(testMerchant))).resolves.toEqual(test);
      const list = (who: Identity) =>
        system.bus.request(subjects.refundsList, { payment_link_id: null, shop_id: null, status: null, limit: 100, cursor: null }, who);
      expect((await list(apiKey(testMerchant))).refunds.map((r) => r.id)).toEqual([live.id]);
      expect((await list(testKey(testMerchant))).refunds.map((r) => r.id)).toEqual([test.id]);
    });

    it('simulates the caller’s own pending test refund through the settle path, and nothing else', async () => {
      const link = await paidLink(testKey(testMerchant), testShop, 10_000);
      const { refund: created } = await refund(link.id, {}, testKey(testMerchant));
      // Another merchant's test refund is 403, a live credential or an unknown id 404.
      await expect(simulate(created.id, 'succeeded', testKey(randomUUID()))).rejects.toMatchObject({ code: 'common.err.forbidden' });
      await expect(simulate(created.id, 'succeeded', apiKey(testMerchant))).rejects.toMatchObject({ code: 'common.err.not_found' });
      await expect(simulate(randomUUID(), 'succeeded')).rejects.toMatchObject({ code: 'common.err.not_found' });
      const settled = await simulate(created.id, 'succeeded');
      expect(settled).toMatchObject({ id: created.id, status: 'succeeded', livemode: false });
      expect((await refundEvents(created.id)).map((e) => platformEvent.parse(e.payload))).toEqual([
        expect.objectContaining({ event: 'refund.succeeded', livemode: false, data: settled }),
      ]);
      await expect(getLink(link.id, testKey(testMerchant))).resolves.toMatchObject({ amount_refunded: '100.00' });
      await expect(simulate(created.id, 'succeeded')).rejects.toMatchObject({ code: 'refund.err.not_pending' });
      await expect(simulate(created.id, 'failed')).rejects.toMatchObject({ code: 'refund.err.not_pending' });
    });

    it('never simulates a live refund: 404', async () => {
      const link = await paidLink(apiKey(testMerchant), testShop, 10_000);
      const { refund: created } = await refund(link.id, {}, apiKey(testMerchant));
      await expect(simulate(created.id, 'succeeded')).rejects.toMatchObject({ code: 'common.err.not_found' });
      expect((await system.bus.request(subjects.refundsGet, { id: created.id }, apiKey(testMerchant))).status).toBe('pending');
    });
  });

  describe('links.refunds.get / list', () => {
    it('answers another merchant’s refund 403 and an unknown one 404', async () => {
      const link = await paidLink(apiKey(merchant), shopId, 10_000);
      const { refund: created } = await refund(link.id);
      await expect(system.bus.request(subjects.refundsGet, { id: created.id }, apiKey(merchant))).resolves.toEqual(created);
      await expect(system.bus.request(subjects.refundsGet, { id: created.id }, apiKey(randomUUID()))).rejects.toMatchObject({
        code: 'common.err.forbidden',
      });
      await expect(system.bus.request(subjects.refundsGet, { id: randomUUID() }, apiKey(merchant))).rejects.toMatchObject({
        code: 'common.err.not_found',
      });
    });

    it('lists newest first with filters and a keyset cursor', async () => {
      const owner = randomUUID();
      const shop = await newShop(owner);
      const other = await newShop(owner);
      const link = await paidLink(apiKey(owner), shop, 10_000);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await refund(link.id, { amount_kopecks: 1_000 }, apiKey(owner))).refund.id);
      const otherLink = await paidLink(apiKey(owner), other, 10_000);
      const otherRefund = (await refund(otherLink.id, {}, apiKey(owner))).refund;
      await settle({ refund_id: ids[0] ?? '', status: 'failed' });

      const list = (over: object) =>
        system.bus.request(
          subjects.refundsList,
          { payment_link_id: null, shop_id: null, status: null, limit: 100, cursor: null, ...over },
          apiKey(owner),
        );
      expect((await list({})).refunds.map((r) => r.id)).toEqual([otherRefund.id, ...[...ids].reverse()]);
      expect((await list({ payment_link_id: link.id })).refunds.map((r) => r.id)).toEqual([...ids].reverse());
      expect((await list({ shop_id: other })).refunds.map((r) => r.id)).toEqual([otherRefund.id]);
      expect((await list({ status: 'failed' })).refunds.map((r) => r.id)).toEqual([ids[0]]);

      const first = await list({ payment_link_id: link.id, limit: 2 });
      expect(first).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      const second = await list({ payment_link_id: link.id, limit: 2, cursor: first.next_cursor });
      const third = await list({ payment_link_id: link.id, limit: 2, cursor: second.next_cursor });
      expect([...first.refunds, ...second.refunds, ...third.refunds].map((r) => r.id)).toEqual([...ids].reverse());
      expect(third).toMatchObject({ has_more: false, next_cursor: null });

      await expect(list({ shop_id: await newShop() })).rejects.toMatchObject({ code: 'common.err.forbidden' });
      await expect(list({ cursor: 'garbage' })).rejects.toMatchObject({ code: 'common.err.validation_failed' });
    });
  });
});
