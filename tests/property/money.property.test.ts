import fc from 'fast-check';
import { CRYPTO_NETWORKS } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import type { ApiResponse } from '../support/http';
import { expectedAndActualEvents, ledgerSums, refundCallback, refundDestinationFor, refundSumsOff, shopMoney, verifyLedger } from '../support/money';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * docs/money.md as properties over random histories, on the whole platform in this process (real
 * Postgres, NATS, Kafka): random sequences of link creates (both modes), selections, payments, failures,
 * cancels, expiries, refunds (whole, part, too much, with an Idempotency-Key) and refund outcomes (first and
 * repeated). A step runs its commands at once where the real system meets them at once (a buyer paying while the
 * merchant cancels or refunds). After each history:
 * - the ledger balances (ledger:verify's function and the rows themselves): no unbalanced transaction, every
 *   shop balance the sum of its entries, none below zero;
 * - the shop's balance (the API's and the ledger's) is what its links and refunds say it must be;
 * - every link's amount_refunded is the sum of its succeeded refunds;
 * - every state change has exactly one event in the outbox, and nothing else has one.
 * Every answer along the way is a documented one (the HTTP client checks it against the OpenAPI document) and none
 * is a 5xx.
 */

/** The time the property may take; fast-check stops starting cases after it (the count run is printed). */
const BUDGET_MS = 45_000;
const MAX_CASES = 200;
jest.setTimeout(BUDGET_MS + 60_000);

type Mode = 'live' | 'test';
type Outcome = 'succeeded' | 'failed';

type Command =
  | { kind: 'create'; mode: Mode; kopecks: number }
  | { kind: 'select'; link: number; choice: 'sbp' | (typeof CRYPTO_NETWORKS)[number] }
  | { kind: 'pay'; link: number }
  | { kind: 'fail'; link: number }
  | { kind: 'cancel'; link: number }
  | { kind: 'expire'; link: number }
  /** percent of the link's amount (over 100 is more than refundable); null refunds all that is left. */
  | { kind: 'refund'; link: number; percent: number | null; keyed: boolean }
  | { kind: 'settle'; refund: number; status: Outcome };

const linkIndex = fc.nat(20);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      mode: fc.constantFrom<Mode>('live', 'test'),
      kopecks: fc.integer({ min: 100, max: 500_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('select' as const), link: linkIndex, choice: fc.constantFrom('sbp' as const, ...CRYPTO_NETWORKS) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pay' as const), link: linkIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const), link: linkIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), link: linkIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), link: linkIndex }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      link: linkIndex,
      percent: fc.option(fc.integer({ min: 1, max: 120 }), { nil: null }),
      keyed: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('settle' as const), refund: fc.nat(20), status: fc.constantFrom<Outcome>('succeeded', 'failed') }),
  },
);
/** A step: one command, or up to three at once. */
const history = fc.array(fc.array(command, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 14 });

let sys: TestSystem;
let merchant: TestMerchant;
let session: string;
beforeAll(async () => {
  sys = await startSystem({
    env: {
      RATE_LIMIT_API_KEY_PER_MINUTE: '1000000000',
      RATE_LIMIT_SESSION_PER_MINUTE: '1000000000',
      RATE_LIMIT_SELECT_PER_IP_PER_MINUTE: '1000000000',
    },
  });
  merchant = await sys.merchant();
  session = await sys.login(merchant);
}, 60_000);
afterAll(async () => {
  await sys?.stop();
});

interface Link {
  id: string;
  mode: Mode;
}
interface Refund {
  id: string;
  mode: Mode;
  gatewayRefundId: string | null;
}

/** One history against one fresh shop of the merchant. */
class Run {
  readonly links: Link[] = [];
  readonly refunds: Refund[] = [];
  readonly answers: { kind: Command['kind']; status: number; code: string | undefined; details: string | undefined }[] = [];
  constructor(readonly shop: TestShop) {}

  private keys(mode: Mode): Record<string, string> {
    return mode === 'live' ? merchant.keys : merchant.testKeys;
  }

  private record(kind: Command['kind'], res: ApiResponse): ApiResponse {
    const { code, details } = (res.body?.error ?? {}) as { code?: string; details?: unknown };
    this.answers.push({ kind, status: res.status, code, details: details === undefined ? undefined : JSON.stringify(details) });
    return res;
  }

  async run(c: Command): Promise<void> {
    if (c.kind === 'create') {
      const res = this.record(
        c.kind,
        await sys.http.post(
          '/merchant/v1/payment-links',
          { shop_id: this.shop.id, amount: formatKopecks(c.kopecks) },
          { headers: this.keys(c.mode) },
        ),
      );
      if (res.status === 201) this.links.push({ id: res.body.id as string, mode: c.mode });
      return;
    }
    if (c.kind === 'settle') {
      const refund = this.refunds[c.refund % Math.max(1, this.refunds.length)];
      if (!refund) return;
      if (refund.mode === 'test') {
        this.record(
          c.kind,
          await sys.http.post(
            `/api/v1/refunds/${refund.id}/simulate`,
            { status: c.status },
            { headers: { Authorization: `Bearer ${session}`, 'Pl-Mode': 'test' } },
          ),
        );
      } else if (refund.gatewayRefundId) {
        this.record(c.kind, await refundCallback(sys, refund.gatewayRefundId, c.status, c.status === 'failed' ? 'declined by the bank' : undefined));
      }
      return;
    }
    const link = this.links[c.link % Math.max(1, this.links.length)];
    if (!link) return;
    switch (c.kind) {
      case 'select':
        this.record(
          c.kind,
          await sys.http.post(`/p/${link.id}/select`, c.choice === 'sbp' ? { method: 'sbp' } : { method: 'crypto', network: c.choice }),
        );
        return;
      case 'pay':
      case 'fail': {
        const status = c.kind === 'pay' ? 'paid' : 'failed';
        // A live link is paid by its provider's callback; a test link only through the checkout's simulator.
        this.record(
          c.kind,
          link.mode === 'live'
            ? await sys.providerCallback(sandboxPaymentId(link.id), status)
            : await sys.http.post(`/p/${link.id}/simulate`, { status }),
        );
        return;
      }
      case 'cancel':
        this.record(c.kind, await sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, {}, { headers: this.keys(link.mode) }));
        return;
      case 'expire':
        // Time travel: the link falls due now; the read (or the sweeper, whichever comes first) expires it.
        await sys.sql(`UPDATE links.payment_links SET expires_at = clock_timestamp() WHERE id = $1 AND status = 'pending'`, [link.id]);
        this.record(c.kind, await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: this.keys(link.mode) }));
        return;
      case 'refund': {
        // The merchant reads the link first, as the dashboard does, to give a crypto payment's address.
        const read = await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: this.keys(link.mode) });
        const amountKopecks = Math.round(Number(read.body.amount) * 100);
        const body = {
          ...(c.percent === null ? {} : { amount: formatKopecks(Math.max(1, Math.floor((amountKopecks * c.percent) / 100))) }),
          ...refundDestinationFor(read.body.network),
        };
        const headers = { ...this.keys(link.mode), ...(c.keyed ? { 'Idempotency-Key': `refund-${link.id}-${c.percent ?? 'all'}` } : {}) };
        const res = this.record(c.kind, await sys.http.post(`/merchant/v1/payment-links/${link.id}/refunds`, body, { headers }));
        if (res.status === 201 && !this.refunds.some((r) => r.id === res.body.id)) {
          this.refunds.push({ id: res.body.id as string, mode: link.mode, gatewayRefundId: res.body.gateway_refund_id as string | null });
        }
        return;
      }
    }
  }
}

/** What each command may answer; anything else (a 5xx above all) fails the property. */
const ALLOWED: Record<Command['kind'], number[]> = {
  create: [201],
  select: [200, 409, 422],
  pay: [200, 404, 409, 422],
  fail: [200, 404, 409, 422],
  cancel: [200, 409],
  expire: [200],
  refund: [201, 400, 409, 422],
  settle: [200, 409],
};

it('keeps the ledger balanced, every balance its entries and never negative, amount_refunded its refunds and one event per move, whatever the history', async () => {
  let cases = 0;
  let commands = 0;
  const seen = new Map<string, number>();
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(history, fc.constantFrom<'merchant' | 'client' | 'split'>('merchant', 'client', 'split'), async (steps, feePayer) => {
      cases += 1;
      const run = new Run(await sys.shop(merchant.id, { feePayer }));
      for (const step of steps) {
        await Promise.all(step.map((c) => run.run(c)));
        commands += step.length;
      }
      for (const a of run.answers) {
        const key = [a.kind, a.status, a.code, a.details].filter((part) => part !== undefined).join(' ');
        seen.set(key, (seen.get(key) ?? 0) + 1);
        expect({ kind: a.kind, status: a.status, allowed: ALLOWED[a.kind].includes(a.status) }).toEqual({
          kind: a.kind,
          status: a.status,
          allowed: true,
        });
      }

      const verified = await verifyLedger(sys);
      expect({ unbalanced: verified.unbalanced, balances_mismatched: verified.balances_mismatched }).toEqual({
        unbalanced: 0,
        balances_mismatched: 0,
      });
      const sums = await ledgerSums(sys);
      expect({ unbalanced: sums.unbalanced, mismatched: sums.mismatched, negative: sums.negative }).toEqual({
        unbalanced: 0,
        mismatched: 0,
        negative: 0,
      });

      for (const mode of ['live', 'test'] as const) {
        const money = await shopMoney(sys, run.shop.id, mode === 'live');
        expect(money.ledger).toEqual(money.expected);
        const balance = await sys.http.get(`/merchant/v1/balance?shop_id=${run.shop.id}`, {
          headers: mode === 'live' ? merchant.keys : merchant.testKeys,
        });
        expect(balance.status).toBe(200);
        expect({ available: balance.body.available, refund_reserve: balance.body.refund_reserve, livemode: balance.body.livemode }).toEqual({
          available: formatKopecks(money.expected.available),
          refund_reserve: formatKopecks(money.expected.refundReserve),
          livemode: mode === 'live',
        });
      }

      expect(await refundSumsOff(sys, run.shop.id)).toEqual([]);
      for (const link of run.links) {
        const [row] = await sys.sql<{ refunded: string }>(
          `SELECT coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0)::text AS refunded FROM links.refunds WHERE payment_link_id = $1`,
          [link.id],
        );
        const read = await sys.http.get(`/merchant/v1/payment-links/${link.id}`, {
          headers: link.mode === 'live' ? merchant.keys : merchant.testKeys,
        });
        expect({ id: link.id, amount_refunded: read.body.amount_refunded }).toEqual({
          id: link.id,
          amount_refunded: formatKopecks(BigInt(row!.refunded)),
        });
      }

      const events = await expectedAndActualEvents(sys, run.shop.id);
      expect(events.actual).toEqual(events.expected);
    }),
    { numRuns: MAX_CASES, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false },
  );
  const outcomes = [...seen].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
  console.log(`money property: ${cases} cases, ${commands} commands in ${Date.now() - started} ms\n${outcomes.join('\n')}`);
  // The budget must leave room for a real sample; a system too slow for it is a failure, not a pass.
  expect(cases).toBeGreaterThanOrEqual(20);
  // Every kind of refund answer was met: the histories did reach the money rules, not only their front door.
  for (const key of ['refund 201', 'refund 409 payment_link.err.not_paid', 'refund 422 refund.err.amount_exceeds_refundable', 'settle 200']) {
    expect(seen.get(key) ?? 0).toBeGreaterThan(0);
  }
});
