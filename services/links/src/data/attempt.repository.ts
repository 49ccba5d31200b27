import type { Db } from '@pl/db';
import type { PaymentMethod, ProviderPayment } from '@pl/providers';
import {
  selectionOf,
  type AnswerOutcome,
  type Attempt,
  type AttemptDraft,
  type AttemptProgress,
  type AttemptState,
  type AttemptStore,
  type AttemptSummary,
} from '../domain/attempt';
import type { LinkRecord } from '../domain/link';
import { COLUMNS, toRecord, type LinkRow } from './link.row';

/** pg hands bigint back as text; kopecks stay far below 2^53. */
interface AttemptRow {
  link_id: string;
  n: number;
  order_id: string;
  provider: string;
  method: PaymentMethod;
  network_asked: string | null;
  fee_bps: number;
  // Text from a column, a number from JSON (json_agg): toAttempt reads either.
  payer_amount: string | number;
  merchant_credit: string | number;
  platform_revenue: string | number;
  state: AttemptState;
  gateway_payment_id: string | null;
  to_currency: string | null;
  network: string | null;
  deposit_address: string | null;
  payer_currency: string | null;
  payer_crypto_amount: string | null;
  qr: string | null;
  current: boolean;
}

const ATTEMPT_COLUMNS = `a.link_id, a.n, a.order_id, a.provider, a.method, a.network_asked, a.fee_bps, a.payer_amount, a.merchant_credit,
  a.platform_revenue, a.state, a.gateway_payment_id, a.to_currency, a.network, a.deposit_address, a.payer_currency, a.payer_crypto_amount, a.qr`;
const WITH_CURRENT = `${ATTEMPT_COLUMNS}, (l.attempts_made = a.n) AS current FROM payment_attempts a JOIN payment_links l ON l.id = a.link_id`;

const toAttempt = (r: AttemptRow): Attempt => ({
  linkId: r.link_id,
  n: r.n,
  orderId: r.order_id,
  provider: r.provider,
  method: r.method,
  networkAsked: r.network_asked,
  feeBps: r.fee_bps,
  payerAmount: Number(r.payer_amount),
  merchantCredit: Number(r.merchant_credit),
  platformRevenue: Number(r.platform_revenue),
  state: r.state,
  payment:
    r.gateway_payment_id === null
      ? null
      : {
          gatewayPaymentId: r.gateway_payment_id,
          toCurrency: r.to_currency ?? '',
          network: r.network ?? '',
          depositAddress: r.deposit_address ?? '',
          payerCurrency: r.payer_currency ?? '',
          payerCryptoAmount: r.payer_crypto_amount,
          qr: r.qr ?? '',
        },
  current: r.current,
});

/**
 * An answer's statement: the link as it shows the answer (every link column null when it does not), what the provider
 * last said of the attempt, and the earlier attempts the answer replaced.
 */
type AnswerRow = (LinkRow | { [K in keyof LinkRow]: null }) & {
  progress_status: AttemptProgress['status'] | null;
  progress_remaining: string | null;
  superseded: AttemptRow[];
};

/** Attempts an answer leaves behind unpaid: replaced by a newer one, to be canceled at their provider. */
const UNPAID_STATES = `('creating', 'pending', 'unknown')`;

/** The answer's statement (see recordAnswer). */
const ANSWER_STATEMENT = `WITH shown AS (
     UPDATE payment_links SET fee_bps = $3, payer_amount = $4, merchant_credit = $5, platform_revenue = $6,
       gateway_provider = $7, gateway_payment_id = $8, to_currency = $9, network = $10, deposit_address = $11,
       payer_currency = $12, payer_crypto_amount = $13, qr = $14, updated_at = now()
      WHERE id = $1 AND status = 'pending' AND expires_at > now() AND attempts_made = $2
      RETURNING ${COLUMNS}
   ),
   answered AS (
     UPDATE payment_attempts SET state = CASE WHEN EXISTS (SELECT FROM shown) THEN 'pending' ELSE 'superseded' END,
       gateway_payment_id = $8, to_currency = $9, network = $10, deposit_address = $11, payer_currency = $12,
       payer_crypto_amount = $13, qr = $14, updated_at = now()
      WHERE link_id = $1 AND n = $2
      RETURNING payment_status, remaining_crypto_amount
   ),
   replaced AS (
     UPDATE payment_attempts a SET state = 'superseded', updated_at = now()
      WHERE a.link_id = $1 AND a.n < $2 AND a.state IN ${UNPAID_STATES} AND EXISTS (SELECT FROM shown)
      RETURNING ${ATTEMPT_COLUMNS}, false AS current
   )
   SELECT shown.*, answered.payment_status AS progress_status, answered.remaining_crypto_amount AS progress_remaining,
          (SELECT coalesce(json_agg(replaced), '[]') FROM replaced) AS superseded
     FROM answered LEFT JOIN shown ON true`;

/**
 * The attempt's opening commits without waiting for its WAL flush (ADR 0043): `set_config(…, true)` is local to the
 * statement's implicit transaction, so the pooled connection's next statement commits flushed again, and Postgres reads
 * the setting at commit, so it only has to be evaluated (the INSERT's SELECT joins it). The answer's flushed commit
 * flushes the opening with it before any buyer is shown the payment.
 */
const OPEN_STATEMENT = `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true)),
   bumped AS (
     UPDATE payment_links SET attempts_made = attempts_made + 1
      WHERE id = $1 AND status = 'pending' AND expires_at > now()
      RETURNING id, livemode, attempts_made
   )
   INSERT INTO payment_attempts AS a (link_id, n, order_id, livemode, provider, method, network_asked, fee_bps, payer_amount,
                                      merchant_credit, platform_revenue)
   SELECT id, attempts_made, id::text || '-' || attempts_made, livemode, $2, $3, $4, $5, $6, $7, $8 FROM bumped CROSS JOIN unflushed
   RETURNING ${ATTEMPT_COLUMNS}, true AS current`;

export class AttemptRepository implements AttemptStore {
  constructor(private readonly db: Db) {}

  async open(linkId: string, draft: AttemptDraft): Promise<Attempt | null> {
    // One statement: the number is taken under the link's row lock for that statement only, and committed with it.
    const rows = await this.db.query<AttemptRow>(OPEN_STATEMENT, [
      linkId,
      draft.provider,
      draft.method,
      draft.networkAsked,
      draft.feeBps,
      draft.payerAmount,
      draft.merchantCredit,
      draft.platformRevenue,
    ]);
    return rows[0] ? toAttempt(rows[0]) : null;
  }

  async recordAnswer(attempt: Attempt, payment: ProviderPayment): Promise<AnswerOutcome> {
    // The attempt records the payment's fields as the link shows them (the selection copies them).
    const selection = selectionOf(attempt, payment);
    // One statement, not BEGIN … COMMIT: atomic as a transaction, one round trip instead of five, and no connection
    // left idle in a transaction between them while this process waits for a CPU (ADR 0011's reasoning). The link's row
    // is locked first (the other parts wait on `shown`), then the attempts', the order every writer of both takes.
    // The attempt's row and its earlier ones are different rows, so no row is written twice in the statement.
    const rows = await this.db.query<AnswerRow>(ANSWER_STATEMENT, [
      attempt.linkId,
      attempt.n,
      selection.feeBps,
      selection.payerAmount,
      selection.merchantCredit,
      selection.platformRevenue,
      selection.gatewayProvider,
      selection.gatewayPaymentId,
      selection.toCurrency,
      selection.network,
      selection.depositAddress,
      selection.payerCurrency,
      selection.payerCryptoAmount,
      selection.qr,
    ]);
    const row = rows[0];
    // The attempt was committed before its provider was called, and attempts are never deleted.
    if (!row) throw new Error(`Attempt ${attempt.orderId} is missing: its answer cannot be recorded`);
    // Not shown on the link (it left pending, or a newer select overtook this one): the payment is not offered, so it
    // is superseded at once and its provider asked to cancel it like any replaced attempt.
    if (row.id === null) return { kind: 'not_selected' };
    const progress = row.progress_status === null ? null : { status: row.progress_status, remainingCryptoAmount: row.progress_remaining };
    return { kind: 'selected', link: toRecord(row), superseded: row.superseded.map(toAttempt), progress };
  }

  async recordFailure(attempt: Attempt, state: 'unknown' | 'refused', providerStatus: string): Promise<void> {
    await this.db.query(`UPDATE payment_attempts SET state = $3, provider_status = $4, updated_at = now() WHERE link_id = $1 AND n = $2`, [
      attempt.linkId,
      attempt.n,
      state,
      providerStatus.slice(0, 1000),
    ]);
  }

  async findForPayment(provider: string, gatewayPaymentId: string, orderId: string | null): Promise<Attempt | null> {
    const rows =
      orderId !== null
        ? await this.db.query<AttemptRow>(`SELECT ${WITH_CURRENT} WHERE a.order_id = $1 AND a.provider = $2`, [orderId, provider])
        : await this.db.query<AttemptRow>(`SELECT ${WITH_CURRENT} WHERE a.provider = $1 AND a.gateway_payment_id = $2 ORDER BY a.n DESC LIMIT 1`, [
            provider,
            gatewayPaymentId,
          ]);
    return rows[0] ? toAttempt(rows[0]) : null;
  }

  async findPaid(linkId: string): Promise<Attempt | null> {
    const rows = await this.db.query<AttemptRow>(`SELECT ${WITH_CURRENT} WHERE a.link_id = $1 AND a.state = 'paid' ORDER BY a.n DESC LIMIT 1`, [
      linkId,
    ]);
    return rows[0] ? toAttempt(rows[0]) : null;
  }

  async markState(attempt: Attempt, state: AttemptState, providerStatus: string | null): Promise<void> {
    await this.db.query(
      `UPDATE payment_attempts SET state = $3, provider_status = COALESCE($4, provider_status), updated_at = now() WHERE link_id = $1 AND n = $2`,
      [attempt.linkId, attempt.n, state, providerStatus],
    );
  }

  async recordProgress(attempt: Attempt, progress: AttemptProgress, providerStatus: string | null): Promise<void> {
    await this.db.query(
      `UPDATE payment_attempts SET payment_status = $3, remaining_crypto_amount = $4, provider_status = COALESCE($5, provider_status),
         updated_at = now()
        WHERE link_id = $1 AND n = $2 AND state IN ${UNPAID_STATES}`,
      [attempt.linkId, attempt.n, progress.status, progress.remainingCryptoAmount, providerStatus],
    );
  }

  async currentProgress(linkId: string): Promise<AttemptProgress | null> {
    const rows = await this.db.query<{ payment_status: AttemptProgress['status']; remaining_crypto_amount: string | null }>(
      `SELECT a.payment_status, a.remaining_crypto_amount FROM payment_attempts a JOIN payment_links l ON l.id = a.link_id
        WHERE a.link_id = $1 AND a.n = l.attempts_made AND a.payment_status IS NOT NULL AND a.state IN ${UNPAID_STATES}`,
      [linkId],
    );
    const row = rows[0];
    return row ? { status: row.payment_status, remainingCryptoAmount: row.remaining_crypto_amount } : null;
  }

  async listForLink(linkId: string, limit: number): Promise<AttemptSummary[]> {
    const rows = await this.db.query<{
      n: number;
      order_id: string;
      provider: string;
      method: PaymentMethod;
      network_asked: string | null;
      gateway_payment_id: string | null;
      state: AttemptState;
      provider_status: string | null;
      created_at: Date;
      updated_at: Date;
    }>(
      `SELECT * FROM (
         SELECT n, order_id, provider, method, network_asked, gateway_payment_id, state, provider_status, created_at, updated_at
           FROM payment_attempts WHERE link_id = $1 ORDER BY n DESC LIMIT $2
       ) newest ORDER BY n`,
      [linkId, limit],
    );
    return rows.map((r) => ({
      n: r.n,
      orderId: r.order_id,
      provider: r.provider,
      method: r.method,
      networkAsked: r.network_asked,
      gatewayPaymentId: r.gateway_payment_id,
      state: r.state,
      providerStatus: r.provider_status,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }

  async restoreOnLink(attempt: Attempt): Promise<LinkRecord | null> {
    if (!attempt.payment) return null;
    const s = selectionOf(attempt, attempt.payment);
    // No expiry condition: a due link not yet swept can still be paid (the money arrived), at what this attempt asked.
    const rows = await this.db.query<LinkRow>(
      `UPDATE payment_links SET fee_bps = $2, payer_amount = $3, merchant_credit = $4, platform_revenue = $5,
         gateway_provider = $6, gateway_payment_id = $7, to_currency = $8, network = $9, deposit_address = $10,
         payer_currency = $11, payer_crypto_amount = $12, qr = $13, updated_at = now()
        WHERE id = $1 AND status = 'pending'
        RETURNING ${COLUMNS}`,
      [
        attempt.linkId,
        s.feeBps,
        s.payerAmount,
        s.merchantCredit,
        s.platformRevenue,
        s.gatewayProvider,
        s.gatewayPaymentId,
        s.toCurrency,
        s.network,
        s.depositAddress,
        s.payerCurrency,
        s.payerCryptoAmount,
        s.qr,
      ],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }
}
