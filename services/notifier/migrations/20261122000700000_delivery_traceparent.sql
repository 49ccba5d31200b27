-- Up Migration
-- The W3C trace context of the Kafka message a delivery came from: every webhook attempt is traced as a
-- child of it, so the payment's trace runs from the provider callback to the merchant's endpoint.
ALTER TABLE deliveries ADD COLUMN traceparent text;

-- Down Migration
ALTER TABLE deliveries DROP COLUMN traceparent;
