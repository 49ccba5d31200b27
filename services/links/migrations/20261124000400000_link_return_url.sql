-- Up Migration
-- Where the checkout page sends the buyer back once the link is over (docs/product-decisions.md, "Returning the buyer to the
-- shop"). At most 2048 code points, checked by the contract before it gets here.
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS return_url text;

-- Down Migration
ALTER TABLE payment_links DROP COLUMN return_url;
