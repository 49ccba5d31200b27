import { CONTENT_TYPE_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER } from '@pl/contracts';
import type { OutboxEntry } from '../domain/link';
import { OUTBOX_COLUMNS } from './outbox.repository';
import type { Statement } from './statement';

const EXPIRED = 'payment_link.expired';

/**
 * A `payment_link.expired` event as JSON, built by Postgres from the link's row `x` (the columns the sweep's UPDATE
 * returns) and its event id `x.event_id`: the same event `linkClosed` (src/domain/payment-event.ts) builds from the
 * row in JavaScript, field for field; test/expiry-sweep-events.test.ts holds the two to each other. Times are the
 * move's `updated_at` in Moscow's fixed UTC+3 to the second (SS drops the fraction, as formatMoscow floors it);
 * money is kopecks as a rouble string with two decimals, as formatKopecks writes it.
 */
const EXPIRED_EVENT_JSON = `jsonb_build_object(
    'event_id', x.event_id,
    'event', '${EXPIRED}',
    'occurred_at', x.moved_at,
    'merchant_id', x.merchant_id,
    'livemode', x.livemode,
    'data', jsonb_build_object(
      'payment_link_id', x.id,
      'id', x.id,
      'shop_id', x.shop_id,
      'order_id', x.order_id,
      'amount', ((x.amount::numeric / 100)::numeric(20, 2))::text,
      'merchant_credit', ((x.merchant_credit::numeric / 100)::numeric(20, 2))::text,
      'status', 'expired',
      'expired_at', x.moved_at))`;

/**
 * The sweeper's batch as one statement, one round trip: expires up to `limit` due pending links (oldest expiry
 * first) and writes each one's `payment_link.expired` to the outbox from the UPDATE's own rows, so no link is
 * expired without its event and none gets two (an event is written per row the UPDATE moved, in its transaction).
 * SKIP LOCKED lets replicas sweep side by side and leaves a link that a cancel or a payment is moving right now
 * to that move; the outer status and expiry check keeps a link moved meanwhile as it is, and a link not yet at
 * its `expires_at` where it is. The outbox's trigger queues the events for the relay in the same statement.
 * Returns each event as written (its payload as the JSON text Postgres made of it), for the hand-over to the relay.
 */
export function expireDueBatchStatement(limit: number, topic: string, traceparent: string | null): Statement {
  return {
    text: `WITH expired AS (
         UPDATE payment_links SET status = 'expired', updated_at = now()
          WHERE id = ANY (ARRAY(SELECT id FROM payment_links
                                 WHERE status = 'pending' AND expires_at <= now()
                                 ORDER BY expires_at
                                 LIMIT $1
                                 FOR UPDATE SKIP LOCKED))
            AND status = 'pending' AND expires_at <= now()
          RETURNING id, merchant_id, shop_id, order_id, amount, merchant_credit, livemode,
                    to_char(updated_at AT TIME ZONE INTERVAL '+03:00', 'YYYY-MM-DD"T"HH24:MI:SS') || '+03:00' AS moved_at
       ), stamped AS MATERIALIZED (
         SELECT expired.*, gen_random_uuid() AS event_id FROM expired
       ), written AS (
         INSERT INTO outbox (${OUTBOX_COLUMNS})
         SELECT x.event_id, $2, x.id::text, ${EXPIRED_EVENT_JSON},
                jsonb_build_object('${EVENT_ID_HEADER}', x.event_id, '${EVENT_TYPE_HEADER}', '${EXPIRED}', '${CONTENT_TYPE_HEADER}', 'application/json'),
                $3
           FROM stamped x
         RETURNING id, message_key, payload::text AS json
       )
       SELECT id, message_key, json FROM written`,
    params: [limit, topic, traceparent],
  };
}

/** A row the sweep's statement returns: an event as written. */
export interface WrittenExpiryRow {
  id: string;
  message_key: string;
  json: string;
}

/** The outbox entry of a written `payment_link.expired`, its payload kept as the JSON text Postgres made of it. */
export const expiredEntry = (row: WrittenExpiryRow, topic: string): OutboxEntry => ({
  id: row.id,
  topic,
  key: row.message_key,
  payload: null,
  json: row.json,
  headers: { [EVENT_ID_HEADER]: row.id, [EVENT_TYPE_HEADER]: EXPIRED, [CONTENT_TYPE_HEADER]: 'application/json' },
});
