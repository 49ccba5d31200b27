-- Up Migration
-- The payment-link object of the interface as JSON text, for a list page: the links service passes a page on as
-- Postgres wrote it instead of parsing 30 columns a link and formatting them again (src/data/link.repository.ts).
-- The bytes are those JSON.stringify(toPaymentLink(link)) gives (src/domain/link-view.ts), field for field and in
-- its order; test/link-json.test.ts holds the two to each other, so a field added to the link is added here too.
--
-- `checkout_base` is the public base URL as it stands inside a JSON string (escaped once by the caller). Free text
-- goes through to_json, whose escaping is JSON.stringify's (" and \ escaped, \b \f \n \r \t by name, other control
-- characters as lowercase \u00xx); the id, status and fee_payer are a uuid and CHECKed words, quoted as they are.
-- Money is kopecks as a rouble string with two decimals (numeric keeps it exact). Times are Moscow's fixed UTC+3
-- (kept since 2014) to the second: SS drops the fraction, so a time never reads later than it happened.
-- One SQL expression, STABLE: the planner inlines it into the query, so it costs no function call per row.
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
    '","amount_refunded":"', (l.amount_refunded::numeric / 100)::numeric(20, 2),
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
DROP FUNCTION IF EXISTS payment_link_json(payment_links, text);
