#!/usr/bin/env bash
# The demo merchant and shop of `npm start` (scripts/start.sh runs it after the migrations): made with the admin
# CLI on the first run, reused on later ones while the database still holds them, and written to
# $DEMO_DIR/demo.json (the record) and $DEMO_DIR/demo.env (the lines to `source`).
#
#   DATABASE_URL=… bash scripts/demo-setup.sh
#
# Environment: DATABASE_URL, DEMO_DIR (.local), DEMO_PASSWORD, DEMO_WEBHOOK_URL, and DEMO_WEBHOOK_SECRET, the secret
# a new demo shop gets (random when unset: 256 bits, base64url, the kind the dashboard's rotation makes).
#
# No secret and no generated value is ever a program's argument: `ps` would show it to every user of the
# machine, and a value that begins with `-` is taken for an option (a random base64url secret does one time in
# 64). Secrets reach the admin CLI on stdin, node and psql read values from their environment.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DEMO_DIR="${DEMO_DIR:-.local}"
DEMO_FILE="$DEMO_DIR/demo.json"
DEMO_ENV="$DEMO_DIR/demo.env"
DEFAULT_DEMO_EMAIL="demo@example.com"
DEMO_EMAIL="$DEFAULT_DEMO_EMAIL"
DEMO_PASSWORD="${DEMO_PASSWORD:-demo-password-2026}"
DEMO_WEBHOOK_URL="${DEMO_WEBHOOK_URL:-http://127.0.0.1:4242/webhooks}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/payment_links}"
export WEBHOOK_ALLOW_PRIVATE_TARGETS=true
mkdir -p "$DEMO_DIR"

say() { printf '\033[1mstart:\033[0m %s\n' "$*" >&2; }
admin() { npm run --silent admin -- "$@"; }
# One field of a JSON object given on stdin (jq may be missing on a fresh machine; node is not).
field() { FIELD="$1" node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.env.FIELD];process.stdout.write(v==null?"":String(v))})'; }
# Runs SQL given on stdin; `\getenv` makes the named environment variables psql variables (`:'name'` quotes one).
sql() { psql "$DATABASE_URL" -tAq -v ON_ERROR_STOP=1; }
new_webhook_secret() {
  if [ -n "${DEMO_WEBHOOK_SECRET:-}" ]; then
    printf '%s' "$DEMO_WEBHOOK_SECRET"
  else
    node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))'
  fi
}

MERCHANT_ID="" API_KEY="" API_SECRET="" SHOP_ID="" CASHIER_KEY="" WEBHOOK_SECRET=""
TEST_API_KEY="" TEST_API_SECRET="" TEST_CASHIER_KEY=""
if [ -f "$DEMO_FILE" ]; then
  MERCHANT_ID="$(field merchant_id <"$DEMO_FILE")" API_KEY="$(field api_key <"$DEMO_FILE")"
  API_SECRET="$(field api_secret <"$DEMO_FILE")" SHOP_ID="$(field shop_id <"$DEMO_FILE")"
  CASHIER_KEY="$(field cashier_key <"$DEMO_FILE")" DEMO_EMAIL="$(field email <"$DEMO_FILE")"
  DEMO_PASSWORD="$(field password <"$DEMO_FILE")" WEBHOOK_SECRET="$(field webhook_secret <"$DEMO_FILE")"
  TEST_API_KEY="$(field test_api_key <"$DEMO_FILE")" TEST_API_SECRET="$(field test_api_secret <"$DEMO_FILE")"
  TEST_CASHIER_KEY="$(field test_cashier_key <"$DEMO_FILE")"
  # The record is only good while the database still holds that merchant and both its key pairs (a dropped
  # database or a fresh one behind DATABASE_URL makes it stale).
  live_and_test_keys="$(API_KEY="$API_KEY" TEST_API_KEY="$TEST_API_KEY" MERCHANT_ID="$MERCHANT_ID" sql <<'SQL'
\getenv api_key API_KEY
\getenv test_api_key TEST_API_KEY
\getenv merchant_id MERCHANT_ID
SELECT count(*) FROM gateway.api_keys
 WHERE public_key IN (:'api_key', :'test_api_key') AND merchant_id::text = :'merchant_id' AND revoked_at IS NULL;
SQL
  )"
  if [ -z "$TEST_API_KEY" ] || [ -z "$TEST_CASHIER_KEY" ]; then
    # A record from before test mode: the secrets of its keys exist only as hashes, and the CLI issues test keys
    # only with a new merchant and shop, so the demo starts over (under a fresh address, below).
    say "$DEMO_FILE has no test keys (made before test mode); creating the demo merchant again"
    MERCHANT_ID="" SHOP_ID="" DEMO_EMAIL="$DEFAULT_DEMO_EMAIL"
  elif [ "$live_and_test_keys" != "2" ]; then
    say "$DEMO_FILE is stale for this database; creating the demo merchant again"
    MERCHANT_ID="" SHOP_ID="" DEMO_EMAIL="$DEFAULT_DEMO_EMAIL"
  fi
fi

if [ -z "$MERCHANT_ID" ]; then
  taken="$(DEMO_EMAIL="$DEMO_EMAIL" sql <<'SQL'
\getenv email DEMO_EMAIL
SELECT count(*) FROM gateway.merchants WHERE lower(email) = lower(:'email');
SQL
  )"
  if [ "$taken" != "0" ]; then
    # Its secret exists only as a hash, so its keys cannot be shown again: use a fresh address instead.
    DEMO_EMAIL="demo+$(date +%s)@example.com"
    say "$DEFAULT_DEMO_EMAIL exists without a record of its keys; creating $DEMO_EMAIL instead"
  fi
  merchant="$(printf '%s' "$DEMO_PASSWORD" | admin merchant:create --email="$DEMO_EMAIL" --password-stdin --email-confirmed)"
  MERCHANT_ID="$(field merchant_id <<<"$merchant")" API_KEY="$(field api_key <<<"$merchant")"
  API_SECRET="$(field api_secret <<<"$merchant")"
  TEST_API_KEY="$(field test_api_key <<<"$merchant")" TEST_API_SECRET="$(field test_api_secret <<<"$merchant")"
  SHOP_ID=""
  say "demo merchant $DEMO_EMAIL created"
fi

# Ids are written `--flag=value`, so even a value that began with `-` could not be read as a flag.
# A record from before the demo shop had a webhook secret gets one now.
if [ -n "$SHOP_ID" ] && [ -n "$WEBHOOK_SECRET" ] && admin shop:update --shop="$SHOP_ID" --status approved >/dev/null; then
  say "demo shop $SHOP_ID: approved"
elif [ -n "$SHOP_ID" ] && WEBHOOK_SECRET="$(new_webhook_secret)" && printf '%s' "$WEBHOOK_SECRET" |
  admin shop:update --shop="$SHOP_ID" --status approved --webhook-url="$DEMO_WEBHOOK_URL" --webhook-secret-stdin >/dev/null; then
  say "demo shop $SHOP_ID: approved, webhooks to $DEMO_WEBHOOK_URL with a new secret"
else
  WEBHOOK_SECRET="$(new_webhook_secret)"
  shop="$(printf '%s' "$WEBHOOK_SECRET" | admin shop:create --merchant="$MERCHANT_ID" --name "Demo shop" --status approved \
    --webhook-url="$DEMO_WEBHOOK_URL" --webhook-secret-stdin)"
  SHOP_ID="$(field shop_id <<<"$shop")" CASHIER_KEY="$(field cashier_key <<<"$shop")"
  TEST_CASHIER_KEY="$(field test_cashier_key <<<"$shop")"
  say "demo shop $SHOP_ID created, webhooks to $DEMO_WEBHOOK_URL"
fi
# The same secret as the Standard Webhooks libraries take it: `whsec_` + base64 of its UTF-8 bytes.
STANDARD_WEBHOOKS_SECRET="whsec_$(WEBHOOK_SECRET="$WEBHOOK_SECRET" node -e 'process.stdout.write(Buffer.from(process.env.WEBHOOK_SECRET, "utf8").toString("base64"))')"

DEMO_FILE="$DEMO_FILE" DEMO_EMAIL="$DEMO_EMAIL" DEMO_PASSWORD="$DEMO_PASSWORD" MERCHANT_ID="$MERCHANT_ID" API_KEY="$API_KEY" \
  API_SECRET="$API_SECRET" SHOP_ID="$SHOP_ID" CASHIER_KEY="$CASHIER_KEY" WEBHOOK_SECRET="$WEBHOOK_SECRET" \
  STANDARD_WEBHOOKS_SECRET="$STANDARD_WEBHOOKS_SECRET" TEST_API_KEY="$TEST_API_KEY" TEST_API_SECRET="$TEST_API_SECRET" TEST_CASHIER_KEY="$TEST_CASHIER_KEY" node -e '
  const e = process.env;
  const record = {
    email: e.DEMO_EMAIL, password: e.DEMO_PASSWORD, merchant_id: e.MERCHANT_ID, api_key: e.API_KEY, api_secret: e.API_SECRET,
    shop_id: e.SHOP_ID, cashier_key: e.CASHIER_KEY, webhook_secret: e.WEBHOOK_SECRET, standard_webhooks_secret: e.STANDARD_WEBHOOKS_SECRET,
    test_api_key: e.TEST_API_KEY, test_api_secret: e.TEST_API_SECRET, test_cashier_key: e.TEST_CASHIER_KEY,
  };
  require("fs").writeFileSync(e.DEMO_FILE, JSON.stringify(record, null, 2) + "\n", { mode: 0o600 });'
(
  umask 077
  cat >"$DEMO_ENV" <<ENV
export API_KEY='$API_KEY'
export API_SECRET='$API_SECRET'
export CASHIER_KEY='$CASHIER_KEY'
# Test mode (docs/test-mode.md): the same merchant and shop, test links only, paid with POST /p/{id}/simulate.
export TEST_API_KEY='$TEST_API_KEY'
export TEST_API_SECRET='$TEST_API_SECRET'
export TEST_CASHIER_KEY='$TEST_CASHIER_KEY'
export SHOP_ID='$SHOP_ID'
# The demo merchant's sign-in (a demo recreated beside an older one has its own email).
export DEMO_EMAIL='$DEMO_EMAIL'
export DEMO_PASSWORD='$DEMO_PASSWORD'
export DEMO_MERCHANT_ID='$MERCHANT_ID'
# The demo shop's webhook secret (its webhooks go to $DEMO_WEBHOOK_URL), plain and in the whsec_ form.
export WEBHOOK_SECRET='$WEBHOOK_SECRET'
export STANDARD_WEBHOOKS_SECRET='$STANDARD_WEBHOOKS_SECRET'
# Local runs may point shops' webhooks at a listener on this machine (the admin CLI checks targets too).
export WEBHOOK_ALLOW_PRIVATE_TARGETS=true
ENV
)
