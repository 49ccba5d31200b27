-- Up Migration
-- The W3C trace context of the transaction that wrote the event, so the relay's Kafka message (and the
-- notifier's webhook after it) continue the payment's trace. Null for rows written while tracing was off.
ALTER TABLE outbox ADD COLUMN traceparent text;

-- Down Migration
ALTER TABLE outbox DROP COLUMN traceparent;
