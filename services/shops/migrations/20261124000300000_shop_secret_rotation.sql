-- Up Migration
-- A webhook secret rotation with an overlap keeps the replaced secret (sealed like the current one) signing
-- alongside the new one until previous_secret_valid_until, so a merchant can switch its receiver without
-- missing a webhook. One previous secret at most: a second rotation during an overlap replaces it.
ALTER TABLE shops
  ADD COLUMN previous_secret_enc bytea,
  ADD COLUMN previous_secret_valid_until timestamptz,
  ADD CONSTRAINT shops_previous_secret_pair CHECK ((previous_secret_enc IS NULL) = (previous_secret_valid_until IS NULL));

-- A merchant's shops are listed newest (highest id) first, one keyset page at a time.
CREATE INDEX shops_merchant_id_desc_idx ON shops (merchant_id, id DESC);
DROP INDEX shops_merchant_idx;

-- Down Migration
CREATE INDEX shops_merchant_idx ON shops (merchant_id);
DROP INDEX shops_merchant_id_desc_idx;
ALTER TABLE shops
  DROP CONSTRAINT shops_previous_secret_pair,
  DROP COLUMN previous_secret_valid_until,
  DROP COLUMN previous_secret_enc;
