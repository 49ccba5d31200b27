import { CRYPTO_NETWORKS, EVENT_TYPES, type CryptoNetwork, type LedgerVerification } from '@pl/contracts';
import { Db } from '@pl/db';
import { verifyLedger as verifyLedgerOf } from '@pl/links';
import { createLogger } from '@pl/telemetry';
import type { ApiResponse } from './http';
import { signProviderBody, type TestSystem } from './system';

/**
 * Helpers of the money tests (docs/money.md): refund outcomes as the sandbox provider sends them, the
 * shop's subscription to every event, and the invariants every money test ends with, read straight from the links
 * schema so they do not trust the code under test.
 */

/** An address valid for each crypto network (checksums included): what a buyer gives for a crypto refund. */
const REFUND_ADDRESS: Record<CryptoNetwork, string> = {
  'USDT-TRC20': 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  'USDT-ERC20': '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  'ETH-ETH': '0xdac17f958d2ee523a2206206994597c13d831ec7',
  'USDT-TON': 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI',
  'TON-TON': 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N',
  'BTC-BTC': 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
};

const isCryptoNetwork = (network: unknown): network is CryptoNetwork => (CRYPTO_NETWORKS as readonly unknown[]).includes(network);

/** The body a refund of this link needs besides its amount: a destination for a link paid on a crypto network. */
export const refundDestinationFor = (network: unknown): { destination?: string } =>
  isCryptoNetwork(network) ? { destination: REFUND_ADDRESS[network] } : {};

/** The sandbox provider's verdict on a refund, signed as its payment callbacks are. */
export function refundCallback(
  sys: TestSystem,
  gatewayRefundId: string,
  status: 'succeeded' | 'failed',
  failureReason?: string,
): Promise<ApiResponse> {
  const body = JSON.stringify({
    gateway_refund_id: gatewayRefundId,
    status,
    ...(failureReason === undefined ? {} : { failure_reason: failureReason }),
  });
  return sys.http.post('/callbacks/v1/sandbox', body, { headers: { 'X-Provider-Signature': signProviderBody(body) } });
}

/** Subscribes the shop's webhook to every event type (the default is payment.succeeded only). */
export async function subscribeToEveryEvent(sys: TestSystem, session: string, shopId: number): Promise<void> {
  const res = await sys.http.call('PATCH', `/api/v1/shops/${shopId}`, {
    body: { webhook_events: [...EVENT_TYPES] },
    headers: { Authorization: `Bearer ${session}` },
  });
  if (res.status !== 200) throw new Error(`subscribing shop ${shopId} to every event failed: ${res.status} ${res.text}`);
}

/** `npm run admin -- ledger:verify`'s own function, on the system's database. */
export async function verifyLedger(sys: Pick<TestSystem, 'database'>): Promise<LedgerVerification> {
  const db = new Db({ url: sys.database.url, schema: 'links', log: createLogger('ledger-verify', 'silent') });
  try {
    return await verifyLedgerOf(db);
  } finally {
    await db.close();
  }
}

/**
 * The ledger checks most money tests end with: `ledger:verify` finds no unbalanced transaction and no running balance
 * off its entries, and no shop account is below zero.
 */
export async function expectLedgerClean(sys: TestSystem): Promise<void> {
  const verified = await verifyLedger(sys);
  expect({ unbalanced: verified.unbalanced, balances_mismatched: verified.balances_mismatched }).toEqual({ unbalanced: 0, balances_mismatched: 0 });
  const sums = await ledgerSums(sys);
  expect({ unbalanced: sums.unbalanced, mismatched: sums.mismatched, negative: sums.negative }).toEqual({
    unbalanced: 0,
    mismatched: 0,
    negative: 0,
  });
}

export interface LedgerSums {
  /** Transactions whose entries do not sum to zero or number fewer than two. */
  unbalanced: number;
  /** Shop accounts whose stored balance is not the sum of their entries. */
  mismatched: number;
  /** Shop accounts whose stored balance or sum of entries is below zero. */
  negative: number;
  transactions: number;
}

/**
 * The ledger judged by its own rows, independently of ledger:verify's code: every transaction balanced, every shop
 * account's stored balance the sum of its entries, none below zero.
 */
export async function ledgerSums(sys: TestSystem): Promise<LedgerSums> {
  const [tx] = await sys.sql<{ transactions: string; unbalanced: string }>(
    `SELECT count(*) AS transactions, count(*) FILTER (WHERE n < 2 OR total <> 0) AS unbalanced
       FROM (SELECT t.id, count(e.id) AS n, coalesce(sum(e.amount), 0) AS total
               FROM links.ledger_transactions t LEFT JOIN links.ledger_entries e ON e.transaction_id = t.id GROUP BY t.id) s`,
  );
  const [accounts] = await sys.sql<{ mismatched: string; negative: string }>(
    `SELECT count(*) FILTER (WHERE a.balance <> s.total) AS mismatched, count(*) FILTER (WHERE a.balance < 0 OR s.total < 0) AS negative
       FROM links.ledger_accounts a
       CROSS JOIN LATERAL (SELECT coalesce(sum(e.amount), 0) AS total FROM links.ledger_entries e WHERE e.account_id = a.id) s
      WHERE a.shop_id IS NOT NULL`,
  );
  return {
    transactions: Number(tx?.transactions),
    unbalanced: Number(tx?.unbalanced),
    mismatched: Number(accounts?.mismatched),
    negative: Number(accounts?.negative),
  };
}

export interface ShopMoney {
  /** From the ledger: the sums of the shop's entries per account. */
  ledger: { available: bigint; refundReserve: bigint };
  /** From the payment state alone: paid links' credits less refunds pending or succeeded; the pending ones. */
  expected: { available: bigint; refundReserve: bigint };
}

/** A shop's money in one mode, from the ledger and, separately, from its links and refunds. */
export async function shopMoney(sys: TestSystem, shopId: number, livemode: boolean): Promise<ShopMoney> {
  const [ledger] = await sys.sql<{ available: string; reserve: string }>(
    `SELECT coalesce(sum(e.amount) FILTER (WHERE a.kind = 'available'), 0)::text AS available,
            coalesce(sum(e.amount) FILTER (WHERE a.kind = 'refund_reserve'), 0)::text AS reserve
       FROM links.ledger_accounts a JOIN links.ledger_entries e ON e.account_id = a.id
      WHERE a.shop_id = $1 AND a.livemode = $2`,
    [shopId, livemode],
  );
  const [state] = await sys.sql<{ credited: string; refunded: string; pending: string }>(
    `SELECT (SELECT coalesce(sum(merchant_credit), 0) FROM links.payment_links
              WHERE shop_id = $1 AND livemode = $2 AND status = 'paid')::text AS credited,
            (SELECT coalesce(sum(amount), 0) FROM links.refunds
              WHERE shop_id = $1 AND livemode = $2 AND status IN ('pending', 'succeeded') AND late_payment_id IS NULL)::text AS refunded,
            (SELECT coalesce(sum(amount), 0) FROM links.refunds
              WHERE shop_id = $1 AND livemode = $2 AND status = 'pending' AND late_payment_id IS NULL)::text AS pending`,
    [shopId, livemode],
  );
  return {
    ledger: { available: BigInt(ledger?.available ?? 0), refundReserve: BigInt(ledger?.reserve ?? 0) },
    expected: { available: BigInt(state!.credited) - BigInt(state!.refunded), refundReserve: BigInt(state!.pending) },
  };
}

/** Links of a shop whose amount_refunded is not the sum of their succeeded refunds, or whose pending sum is not theirs. */
export function refundSumsOff(sys: TestSystem, shopId: number): Promise<{ id: string; amount_refunded: string; succeeded: string }[]> {
  return sys.sql(
    `SELECT l.id::text, l.amount_refunded::text, coalesce(r.succeeded, 0)::text AS succeeded
       FROM links.payment_links l
       LEFT JOIN (SELECT payment_link_id, sum(amount) FILTER (WHERE status = 'succeeded') AS succeeded,
                         sum(amount) FILTER (WHERE status = 'pending') AS pending
                    FROM links.refunds GROUP BY 1) r ON r.payment_link_id = l.id
      WHERE l.shop_id = $1
        AND (l.amount_refunded <> coalesce(r.succeeded, 0) OR l.amount_refund_pending <> coalesce(r.pending, 0))`,
    [shopId],
  );
}

/** The shop's outbox events, as (type, object id): a link's id for link events, a refund's for refund events. */
function outboxEvents(sys: TestSystem, shopId: number): Promise<{ id: string; event: string; object_id: string }[]> {
  return sys.sql(
    `SELECT id::text, payload->>'event' AS event, payload->'data'->>'id' AS object_id
       FROM links.outbox WHERE (payload->>'merchant_id') IS NOT NULL AND (payload->'data'->>'shop_id')::bigint = $1`,
    [shopId],
  );
}

/** The one event each final state has; a pending link or refund has none. */
const LINK_STATUS_EVENT: Record<string, string | undefined> = {
  paid: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment_link.canceled',
  expired: 'payment_link.expired',
};
const REFUND_STATUS_EVENT: Record<string, string | undefined> = { succeeded: 'refund.succeeded', failed: 'refund.failed' };

/**
 * What the shop's events should be, from the states of its links and refunds, and what they are: one event per
 * final state, none for anything pending. Sorted, so two equal lists mean exactly one event per move.
 */
export async function expectedAndActualEvents(sys: TestSystem, shopId: number): Promise<{ expected: string[]; actual: string[] }> {
  const links = await sys.sql<{ id: string; status: string }>('SELECT id::text, status FROM links.payment_links WHERE shop_id = $1', [shopId]);
  const refunds = await sys.sql<{ id: string; status: string }>(
    'SELECT id::text, status FROM links.refunds WHERE shop_id = $1 AND late_payment_id IS NULL',
    [shopId],
  );
  // Money that did not simply pay a pending link (a payment after a cancel, say) is an unresolved payment: its record's
  // event, and its resolution's if it has one.
  const unresolved = await sys.sql<{ id: string; status: string }>(
    'SELECT p.id::text, p.status FROM links.unresolved_payments p JOIN links.payment_links l ON l.id = p.link_id WHERE l.shop_id = $1',
    [shopId],
  );
  const expected = [
    ...links.flatMap((l) => (LINK_STATUS_EVENT[l.status] ? [`${LINK_STATUS_EVENT[l.status]} ${l.id}`] : [])),
    ...refunds.flatMap((r) => (REFUND_STATUS_EVENT[r.status] ? [`${REFUND_STATUS_EVENT[r.status]} ${r.id}`] : [])),
    ...unresolved.flatMap((u) => [
      `unresolved_payment.created ${u.id}`,
      ...(u.status === 'unresolved' ? [] : [`unresolved_payment.${u.status} ${u.id}`]),
    ]),
  ].sort();
  const actual = (await outboxEvents(sys, shopId)).map((e) => `${e.event} ${e.object_id}`).sort();
  return { expected, actual };
}
