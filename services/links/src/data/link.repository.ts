import { randomUUID } from 'node:crypto';
import { PAYMENT_EVENTS_TOPIC } from '@pl/contracts';
import type { PoolClient } from 'pg';
import { SharedReads, type Db } from '@pl/db';
import { linkClosed, paymentSucceeded } from '../domain/payment-event';
import type { FinalStatus, LinkRecord, NewLink, OutboxEntry, Settlement } from '../domain/link';
import { activeSpan, currentTraceparent, type Registry } from '@pl/telemetry';
import { paidPostingSql } from './ledger.repository';
import { LinkInserts } from './link-inserts';
import { insertUnresolved } from './unresolved-payment.repository';
import { LinkLookups } from './link-lookups';
import { COLUMNS, FROM_MICROS, toListedLink, toRecord, type LinkRow, type ListedRow } from './link.row';
import type { Statement } from './statement';
import { committedEntry, insertOutboxEntries, OUTBOX_COLUMNS, outboxValues } from './outbox.repository';
import { expiredEntry, expireDueBatchStatement, type WrittenExpiryRow } from './expiry-sweep.statement';
import {
  isLinksOwnMode,
  type LinkListQuery,
  type ListedLink,
  type LinkReach,
  type LinkScope,
  type LinkStore,
  type LinksOwnMode,
  type ModeReach,
} from '../domain/ports';

/** Extra conditions of each move beyond "the link is pending": time rules and what else it stamps. */
const MOVES: Readonly<Record<FinalStatus, { where: string; set: string }>> = {
  // A link past its expiry is expired, not cancelable; a link before it cannot expire.
  canceled: { where: 'AND expires_at > now()', set: '' },
  expired: { where: 'AND expires_at <= now()', set: '' },
  paid: { where: '', set: ', paid_at = now()' },
  failed: { where: '', set: '' },
};

/** Builds `AND col = $n` conditions, numbering parameters as it goes. */
class Conditions {
  readonly params: unknown[];
  private readonly parts: string[] = [];

  constructor(initial: unknown[]) {
    this.params = [...initial];
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(sql: string): void {
    this.parts.push(`AND ${sql}`);
  }

  /** Nothing for a link's own mode; else the mode, and the merchant and shop of a scope. */
  reach(reach: ModeReach | LinkReach): void {
    if (isLinksOwnMode(reach)) return;
    if ('merchantId' in reach) {
      this.add(`merchant_id = ${this.param(reach.merchantId)}`);
      if (reach.shopId !== undefined) this.add(`shop_id = ${this.param(reach.shopId)}`);
    }
    this.add(`livemode = ${this.param(reach.mode === 'live')}`);
  }

  toString(): string {
    return this.parts.join(' ');
  }
}

/** The insert of a new pending link, returning its row. */
export function insertLinkStatement(link: NewLink): Statement {
  return {
    text: `INSERT INTO payment_links (id, merchant_id, shop_id, order_id, description, currency, amount, fee_bps,
       fee_percent_bp, crypto_bps, sbp_bps, fee_payer, payer_amount, merchant_credit, platform_revenue, status,
       expires_at, return_url, livemode)
     VALUES ($1, $2, $3, $4, $5, 'RUB', $6, $7, $8, $9, $10, $11, $12, $13, $14, 'pending',
       now() + $15::int * interval '1 minute', $16, $17)
     RETURNING ${COLUMNS}`,
    params: [
      link.id,
      link.merchantId,
      link.shopId,
      link.orderId,
      link.description,
      link.amount,
      link.feeBps,
      link.feePercentBp,
      link.cryptoBps,
      link.sbpBps,
      link.feePayer,
      link.payerAmount,
      link.merchantCredit,
      link.platformRevenue,
      link.expiresInMinutes,
      link.returnUrl,
      link.livemode,
    ],
  };
}

/** The move of a pending link to `to` (within `reach`), returning its row when it moved. */
export function transitionStatement(id: string, to: FinalStatus, reach: LinkReach): Statement {
  const move = MOVES[to];
  const c = new Conditions([id, to]);
  c.reach(reach);
  return {
    text: `UPDATE payment_links SET status = $2, updated_at = now() ${move.set}
      WHERE id = $1 AND status = 'pending' ${move.where} ${c.toString()}
      RETURNING ${COLUMNS}`,
    params: c.params,
  };
}

/** The event of a move, from the link's row as the move returned it. */
const eventOfMove = (moved: LinkRecord, topic: string): OutboxEntry =>
  moved.status === 'paid' ? paymentSucceeded(moved, randomUUID(), topic) : linkClosed(moved, randomUUID(), topic);

/** Where a move's events go: the topic, and who is told of each one committed (the relay, so it need not wait for its poll). */
export interface MoveEvents {
  topic: string;
  onEventWritten: (entry: OutboxEntry) => void;
}

/**
 * Runs `move` (a statement returning the payment_links rows it moved) and writes one event per moved row, in one
 * transaction: no move commits without its event, and a move that lost its race (no row) writes none. The events
 * are built from the returned rows, so each reports the time the move stamped (`updated_at`).
 */
export async function moveWithEvents(
  db: Db,
  move: Statement,
  events: MoveEvents,
  after?: (client: PoolClient, moved: LinkRecord[]) => Promise<OutboxEntry[]>,
): Promise<LinkRecord[]> {
  const { moved, entries, traceparent, also } = await db.transaction(async (client) => {
    const { rows } = await client.query<LinkRow>(move.text, move.params);
    const records = rows.map(toRecord);
    const written = records.map((r) => eventOfMove(r, events.topic));
    const tp = await insertOutboxEntries(client, written);
    return { moved: records, entries: written, traceparent: tp, also: after ? await after(client, records) : [] };
  });
  for (const entry of entries) events.onEventWritten(committedEntry(entry, traceparent));
  for (const entry of also) events.onEventWritten(entry);
  return moved;
}

/**
 * A provider's `failed` for `link` as read: the move requires the link still as read (as a `paid` does) and
 * stamps the payment on a link that selected none. Its `payment.failed` is built from the row it returns.
 */
function failStatement(link: LinkRecord, settlement: Settlement): Statement {
  return {
    text: `UPDATE payment_links SET status = 'failed', failure_reason = $6, updated_at = now(),
             gateway_provider = COALESCE(gateway_provider, $2), gateway_payment_id = COALESCE(gateway_payment_id, $3)
            WHERE id = $1 AND status = 'pending' AND merchant_credit = $4 AND gateway_payment_id IS NOT DISTINCT FROM $5
            RETURNING ${COLUMNS}`,
    params: [
      link.id,
      settlement.gatewayProvider,
      settlement.gatewayPaymentId,
      link.merchantCredit,
      link.gatewayPaymentId,
      settlement.failureReason ?? 'provider_failed',
    ],
  };
}

/** On a request's span, when its list page was read once for several requests (`SharedReads`): how many. */
const SHARED_READ_ATTRIBUTE = 'pl.read.shared_by';

/** Payment links in the `links` schema. Every status move is a single conditional UPDATE, with its event in the same transaction. */
export class LinkRepository implements LinkStore {
  private readonly events: MoveEvents;
  private readonly inserts: LinkInserts;
  private readonly lookups: LinkLookups;
  /** Lists of one page asked for at once are read once (SharedReads); every caller gets the same links, unchanged. */
  private readonly listReads = new SharedReads<readonly ListedLink[]>();

  /**
   * `onEventWritten` gets each event a move committed to the outbox: the relay need not wait for its poll.
   * `eventsTopic` is the Kafka topic of those events; `metrics` gets the creates' group-commit batch sizes.
   */
  constructor(
    private readonly db: Db,
    onEventWritten: (entry: OutboxEntry) => void = () => undefined,
    eventsTopic: string = PAYMENT_EVENTS_TOPIC,
    metrics?: Registry,
  ) {
    this.events = { topic: eventsTopic, onEventWritten };
    this.inserts = new LinkInserts(db, insertLinkStatement, metrics);
    this.lookups = new LinkLookups(db);
  }

  /** A plain create (no Idempotency-Key): written with the creates in flight beside it (group commit, LinkInserts). */
  async insert(link: NewLink): Promise<LinkRecord> {
    return toRecord(await this.inserts.insert(link));
  }

  /** Read with the reads in flight beside it (LinkLookups). */
  async findById(id: string, reach: ModeReach): Promise<LinkRecord | null> {
    const row = await this.lookups.find(id, reach);
    return row ? toRecord(row) : null;
  }

  /** Each link as Postgres writes its JSON (`payment_link_json`): the page is passed on, not parsed and formatted here. */
  async list(query: LinkListQuery, publicBaseUrl: string): Promise<readonly ListedLink[]> {
    // The mode right after the merchant, as the list indexes hold it.
    const c = new Conditions([query.scope.merchantId, query.scope.mode === 'live']);
    if (query.scope.shopId !== undefined) c.add(`shop_id = ${c.param(query.scope.shopId)}`);
    if (query.shopId !== null) c.add(`shop_id = ${c.param(query.shopId)}`);
    if (query.status !== null) c.add(`status = ${c.param(query.status)}`);
    if (query.orderId !== null) c.add(`order_id = ${c.param(query.orderId)}`);
    if (query.after) {
      const at = c.param(query.after.createdAtMicros.toString());
      const id = c.param(query.after.id);
      c.add(`(created_at, id) < (${FROM_MICROS(at)}, ${id}::uuid)`);
    }
    // The limit is written into the text, not bound: with it bound, Postgres finds a generic plan of the first page
    // dearer than a fresh one and plans that page anew at every call (the planning then costs more than the read).
    // It is a whole number the contract bounds (1..100, plus the one that tells whether more follow).
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) throw new RangeError(`A page limit must be a positive integer: ${query.limit}`);
    // The base as it stands inside a JSON string: escaped here once, not per link.
    const base = c.param(JSON.stringify(publicBaseUrl).slice(1, -1));
    // The JSON is written in the outer query, so only the page's rows pay for it whatever plan finds them (a plan
    // that sorts the merchant's links would otherwise write every one of them before the LIMIT).
    const text = `SELECT (page.l).id, (page.l).status, floor(extract(epoch FROM (page.l).expires_at) * 1000)::float8 AS expires_at_ms,
              (extract(epoch FROM (page.l).created_at) * 1000000)::bigint AS created_at_us,
              payment_link_json(page.l, ${base}) AS json
         FROM (SELECT l FROM payment_links l
                WHERE merchant_id = $1 AND livemode = $2 ${c.toString()}
                ORDER BY created_at DESC, id DESC
                LIMIT ${query.limit}) page
        ORDER BY (page.l).created_at DESC, (page.l).id DESC`;
    // The statement and its values are all the page depends on, so they key it: identical lists share a read.
    const read = await this.listReads.read(`${text}\u0000${JSON.stringify(c.params)}`, async () =>
      (await this.db.query<ListedRow>(text, c.params)).map(toListedLink),
    );
    if (read.sharedBy > 1) activeSpan()?.setAttribute(SHARED_READ_ATTRIBUTE, read.sharedBy);
    return read.value;
  }

  async transition(id: string, to: FinalStatus, reach: LinkReach): Promise<LinkRecord | null> {
    const [moved] = await moveWithEvents(this.db, transitionStatement(id, to, reach), this.events);
    return moved ?? null;
  }

  async expireDue(scope: LinkScope): Promise<number> {
    // All the merchant's shops (a cashier's list expires them too, as before): the mode is what confines it.
    const moved = await moveWithEvents(
      this.db,
      {
        text: `UPDATE payment_links SET status = 'expired', updated_at = now()
                WHERE merchant_id = $1 AND livemode = $2 AND status = 'pending' AND expires_at <= now()
                RETURNING ${COLUMNS}`,
        params: [scope.merchantId, scope.mode === 'live'],
      },
      this.events,
    );
    return moved.length;
  }

  async findForPayment(provider: string, gatewayPaymentId: string, linkId: string | null, _reach: LinksOwnMode): Promise<LinkRecord | null> {
    // The stored payment first; the derived id only matches a link that stored none.
    const rows = await this.db.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links
        WHERE (gateway_provider = $1 AND gateway_payment_id = $2) OR (id = $3 AND gateway_payment_id IS NULL)
        ORDER BY gateway_payment_id IS NULL
        LIMIT 1`,
      [provider, gatewayPaymentId, linkId],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /**
   * One statement, so the move and its event commit together without a transaction's extra round trips
   * (the settle is on every payment's path). "As read" is what the event reports and which payment it is:
   * the credit (a selection reprices it) and the stored payment id. A link settled with no selection is
   * stamped with the payment that settled it. A `paid` posts its ledger transaction in the same statement, so
   * no link is paid without its credit, and a settle that loses its race (no row) posts nothing. A `failed`
   * (rare, off the hot path) writes its `payment.failed`, built from the moved row, in the move's transaction;
   * `event` is the `paid` one.
   */
  async settle(link: LinkRecord, settlement: Settlement, event: OutboxEntry | null): Promise<LinkRecord | null> {
    const recordUnresolved = async (client: PoolClient, moved: readonly LinkRecord[]): Promise<OutboxEntry[]> => {
      if (!settlement.unresolved || moved.length === 0) return [];
      const done = await insertUnresolved(client, settlement.unresolved.payment, settlement.unresolved.eventOf);
      return done ? [done.event] : [];
    };
    if (settlement.to === 'failed') {
      const [failed] = await moveWithEvents(this.db, failStatement(link, settlement), this.events, recordUnresolved);
      return failed ?? null;
    }
    const move = MOVES[settlement.to];
    const values = event ? outboxValues(event) : [null, null, null, null, null, null];
    const statement = {
      text: `WITH settled AS (
         UPDATE payment_links SET status = $2, updated_at = now(), paid_at = CASE WHEN $2 = 'paid' THEN $7::timestamptz END,
                gateway_provider = COALESCE(gateway_provider, $3), gateway_payment_id = COALESCE(gateway_payment_id, $4)
          WHERE id = $1 AND status = 'pending' ${move.where}
            AND merchant_credit = $5 AND gateway_payment_id IS NOT DISTINCT FROM $6
          RETURNING ${COLUMNS}
       ), event AS (
         INSERT INTO outbox (${OUTBOX_COLUMNS}) SELECT $8::uuid, $9, $10, $11::jsonb, $12::jsonb, $13 FROM settled WHERE $8::uuid IS NOT NULL
       ), posted AS (
         ${paidPostingSql('settled')}
       )
       SELECT settled.* FROM settled LEFT JOIN posted ON true`,
      params: [
        link.id,
        settlement.to,
        settlement.gatewayProvider,
        settlement.gatewayPaymentId,
        link.merchantCredit,
        link.gatewayPaymentId,
        settlement.at,
        ...values,
      ],
    };
    // An overpayment's surplus is recorded in the payment's transaction; a plain payment stays one statement.
    const { rows, also } = settlement.unresolved
      ? await this.db.transaction(async (client) => {
          const { rows: moved } = await client.query<LinkRow>(statement.text, statement.params);
          return { rows: moved, also: await recordUnresolved(client, moved.map(toRecord)) };
        })
      : { rows: await this.db.query<LinkRow>(statement.text, statement.params), also: [] };
    const settled = rows[0] ? toRecord(rows[0]) : null;
    if (settled && event) this.events.onEventWritten(committedEntry(event, values[5] as string | null));
    for (const entry of also) this.events.onEventWritten(entry);
    return settled;
  }

  /**
   * The sweeper's batch: expires up to `limit` due pending links with each one's `payment_link.expired`, in one
   * statement ({@link expireDueBatchStatement}), and returns their ids. The events are built by Postgres from the
   * rows it moved, so nothing per link runs here but the hand-over of each written event to the relay.
   */
  async expireDueBatch(limit: number, _reach: LinksOwnMode): Promise<string[]> {
    const traceparent = currentTraceparent();
    const { text, params } = expireDueBatchStatement(limit, this.events.topic, traceparent);
    const rows = await this.db.query<WrittenExpiryRow>(text, params);
    for (const row of rows) this.events.onEventWritten(committedEntry(expiredEntry(row, this.events.topic), traceparent));
    return rows.map((r) => r.message_key);
  }

  /** Due pending links, counted through the partial index of pending links: the sweeper's backlog. */
  async countDue(_reach: LinksOwnMode): Promise<number> {
    const rows = await this.db.query<{ due: number }>(
      `SELECT count(*)::int AS due FROM payment_links WHERE status = 'pending' AND expires_at <= now()`,
    );
    return rows[0]?.due ?? 0;
  }
}
