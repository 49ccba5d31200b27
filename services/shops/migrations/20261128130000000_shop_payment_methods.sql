-- Up Migration
-- The payment methods a shop takes (docs/providers.md, "A shop's methods"). Every existing shop, and every new one,
-- takes SBP and all six crypto networks: what the checkout offered before shops could choose. The checks keep an
-- operator's SQL from storing an unknown network or a shop that takes nothing; the services validate first, except
-- that "one method stays on" is judged here, against the row as the patch leaves it, so two concurrent patches that
-- each switch off a different method cannot together leave none.
ALTER TABLE shops
  ADD COLUMN sbp_enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN crypto_networks text[] NOT NULL DEFAULT '{USDT-TRC20,USDT-ERC20,USDT-TON,BTC-BTC,ETH-ETH,TON-TON}'
    CONSTRAINT shops_crypto_networks_known CHECK (
      crypto_networks <@ ARRAY['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON']::text[]
      AND array_position(crypto_networks, NULL) IS NULL
    ),
  ADD CONSTRAINT shops_payment_method_on CHECK (sbp_enabled OR cardinality(crypto_networks) > 0);

-- Down Migration
ALTER TABLE shops DROP CONSTRAINT shops_payment_method_on, DROP COLUMN crypto_networks, DROP COLUMN sbp_enabled;
