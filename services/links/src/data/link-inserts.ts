import { isAppError } from '@pl/errors';
import { returnedRow, WriteBatcher, type Db } from '@pl/db';
import { Histogram, inSpan, registeredMetric, type Registry } from '@pl/telemetry';
import type { NewLink } from '../domain/link';
import { COLUMNS, type LinkRow } from './link.row';
import type { Statement } from './statement';

/** At most this many links go in one statement: it bounds the statement's size and what a failed batch retries link by link. */
const MAX_BATCH = 200;

/**
 * Every new link in one statement: the columns as parallel arrays, so the text is the same whatever the batch
 * size and stays one prepared statement per connection.
 */
const BATCH_TEXT = `INSERT INTO payment_links (id, merchant_id, shop_id, order_id, description, currency, amount, fee_bps,
     fee_percent_bp, crypto_bps, sbp_bps, fee_payer, payer_amount, merchant_credit, platform_revenue, status,
     expires_at, return_url, livemode)
   SELECT id, merchant_id, shop_id, order_id, description, 'RUB', amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps,
          fee_payer, payer_amount, merchant_credit, platform_revenue, 'pending', now() + minutes * interval '1 minute',
          return_url, livemode
     FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::int[], $8::int[], $9::int[],
                 $10::int[], $11::text[], $12::bigint[], $13::bigint[], $14::bigint[], $15::int[], $16::text[], $17::boolean[])
          AS l(id, merchant_id, shop_id, order_id, description, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps,
               fee_payer, payer_amount, merchant_credit, platform_revenue, minutes, return_url, livemode)
   RETURNING ${COLUMNS}`;

const batchParams = (links: NewLink[]): unknown[] => [
  links.map((l) => l.id),
  links.map((l) => l.merchantId),
  links.map((l) => l.shopId),
  links.map((l) => l.orderId),
  links.map((l) => l.description),
  links.map((l) => l.amount),
  links.map((l) => l.feeBps),
  links.map((l) => l.feePercentBp),
  links.map((l) => l.cryptoBps),
  links.map((l) => l.sbpBps),
  links.map((l) => l.feePayer),
  links.map((l) => l.payerAmount),
  links.map((l) => l.merchantCredit),
  links.map((l) => l.platformRevenue),
  links.map((l) => l.expiresInMinutes),
  links.map((l) => l.returnUrl),
  links.map((l) => l.livemode),
];

type Outcome = { row: LinkRow; batch: number } | { error: unknown };

/**
 * Group commit for creates: the links that arrive while an insert is in flight (or in the same turn of the
 * event loop) are written together in the next one, one statement and one commit for all of them. Alone, a
 * link is inserted at once by itself, as before; under load each commit carries many, which is where a create's
 * database time went (its round trip, its commit, its WAL flush). Nothing is held back waiting for company.
 *
 * Each link is still its own row with its own outcome: when a batch fails for a reason other than the database
 * being unreachable, its links are retried one by one, so one bad row fails only its own create. A link's
 * trace keeps a span of its insert, with the size of the batch it went in.
 */
export class LinkInserts {
  private readonly batcher = new WriteBatcher<NewLink, Outcome>((links) => this.write(links), MAX_BATCH);
  private readonly batchSizes;

  constructor(
    private readonly db: Db,
    /** The statement of one link alone (the link repository's, which keyed creates share). */
    private readonly insertStatement: (link: NewLink) => Statement,
    metrics?: Registry,
  ) {
    this.batchSizes = metrics
      ? registeredMetric(
          metrics,
          'links_insert_batch_size',
          () =>
            new Histogram({
              name: 'links_insert_batch_size',
              help: 'New payment links written per insert statement (group commit)',
              buckets: [1, 2, 4, 8, 16, 32, 64, 128, 200],
              registers: [metrics],
            }),
        )
      : undefined;
  }

  insert(link: NewLink): Promise<LinkRow> {
    return inSpan('payment_links insert', { attributes: { 'db.system': 'postgresql', 'db.operation.name': 'INSERT' } }, async (span) => {
      const outcome = await this.batcher.add(link);
      if ('error' in outcome) throw outcome.error;
      span.setAttribute('db.operation.batch.size', outcome.batch);
      return outcome.row;
    });
  }

  private async write(links: NewLink[]): Promise<Outcome[]> {
    this.batchSizes?.observe(links.length);
    const [only] = links;
    if (only && links.length === 1) return [await this.insertOne(only)];
    let rows: LinkRow[];
    try {
      rows = await this.db.query<LinkRow>(BATCH_TEXT, batchParams(links));
    } catch (error) {
      // Unreachable is unreachable for every link alike; anything else may be one link's, so each is tried alone.
      if (isAppError(error) && error.kind === 'unavailable') return links.map(() => ({ error }));
      return Promise.all(links.map((l) => this.insertOne(l)));
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    return links.map((l) => {
      const row = byId.get(l.id);
      return row ? { row, batch: links.length } : { error: new Error(`insert of payment link ${l.id} returned no row`) };
    });
  }

  private async insertOne(link: NewLink): Promise<Outcome> {
    try {
      const insert = this.insertStatement(link);
      return { row: returnedRow(await this.db.query<LinkRow>(insert.text, insert.params)), batch: 1 };
    } catch (error) {
      return { error };
    }
  }

  /** Resolves once every insert asked for so far has been written: for a replica about to stop. */
  settled(): Promise<void> {
    return this.batcher.settled();
  }
}
