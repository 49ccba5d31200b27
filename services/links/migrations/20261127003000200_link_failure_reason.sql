-- Up Migration
-- Why a failed link failed (docs/product-decisions.md): `provider_failed` (the provider failed the payment, or the sandbox
-- or an operator said failed), `underpaid` (less than asked arrived, final), `aml_hold` (what arrived is held for AML
-- checks). Null unless the link is failed; written by the move to failed, in its statement.
ALTER TABLE payment_links ADD COLUMN failure_reason text
  CHECK (failure_reason IN ('provider_failed', 'underpaid', 'aml_hold'));
-- A link failed before this column existed failed at its provider.
UPDATE payment_links SET failure_reason = 'provider_failed' WHERE status = 'failed';

-- The list's JSON of a link gains `failure_reason` after `status`, as toPaymentLink writes it (test/link-json.test.ts).
CREATE OR REPLACE FUNCTION payment_link_json(l payment_links, checkout_base text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT concat(
    '{"id":"', l.id,
    '","shop_id":', l.shop_id,
    ',"order_id":', coalesce(to_json(l.order_id)::text, 'null'),
    ',"description":', coalesce(to_json(l.description)::text, 'null'),
    ',"return_url":', coalesce(to_json(l.return_url)::text, 'null'),
    ',"currency":"RUB","amount":"', (l.amount::numeric / 100)::numeric(20, 2),
    '","fee_bps":', l.fee_bps,
    ',"fee_percent_bp":', l.fee_percent_bp,
    ',"fee_payer":"', l.fee_payer,
    '","payer_amount":"', (l.payer_amount::numeric / 100)::numeric(20, 2),
    '","merchant_credit":"', (l.merchant_credit::numeric / 100)::numeric(20, 2),
    '","platform_revenue":"', (l.platform_revenue::numeric / 100)::numeric(20, 2),
    '","status":"', l.status,
    '","failure_reason":', coalesce(to_json(l.failure_reason)::text, 'null'),
    ',"amount_refunded":"', (l.amount_refunded::numeric / 100)::numeric(20, 2),
    '","gateway_provider":', coalesce(to_json(l.gateway_provider)::text, 'null'),
    ',"gateway_payment_id":', coalesce(to_json(l.gateway_payment_id)::text, 'null'),
    ',"to_currency":', coalesce(to_json(l.to_currency)::text, 'null'),
    ',"network":', coalesce(to_json(l.network)::text, 'null'),
    ',"deposit_address":', coalesce(to_json(l.deposit_address)::text, 'null'),
    ',"payer_currency":', coalesce(to_json(l.payer_currency)::text, 'null'),
    ',"payer_crypto_amount":', coalesce(to_json(l.payer_crypto_amount)::text, 'null'),
    ',"qr":', coalesce(to_json(l.qr)::text, 'null'),
    ',"checkout_url":"', checkout_base, '/p/', l.id,
    '","pay_url":"', checkout_base, '/p/', l.id,
    '","paymentUrl":"', checkout_base, '/p/', l.id,
    '","expires_at":"', to_char(l.expires_at AT TIME ZONE INTERVAL '+03:00', 'YYYY-MM-DD"T"HH24:MI:SS'),
    '+03:00","paid_at":', coalesce('"' || to_char(l.paid_at AT TIME ZONE INTERVAL '+03:00', 'YYYY-MM-DD"T"HH24:MI:SS') || '+03:00"', 'null'),
    ',"created_at":"', to_char(l.created_at AT TIME ZONE INTERVAL '+03:00', 'YYYY-MM-DD"T"HH24:MI:SS'),
    '+03:00","updated_at":"', to_char(l.updated_at AT TIME ZONE INTERVAL '+03:00', 'YYYY-MM-DD"T"HH24:MI:SS'),
    '+03:00","livemode":', l.livemode::text,
    '}')
$$;

-- Down Migration
ALTER TABLE payment_links DROP COLUMN failure_reason;
