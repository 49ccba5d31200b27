#!/usr/bin/env bash
# `npm start`: from a fresh clone to four running services with a demo merchant and shop.
#   npm install (when needed) -> build -> local dependencies -> migrations -> demo data -> gateway, links, shops,
#   notifier in the foreground, output prefixed with the service name. Ctrl-C stops them all (and the Kafka
#   mock this run started); if one service dies, the others are stopped and the script exits non-zero.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p .local
# Node of the .nvmrc line (fetched into .local/node/ once when the machine's is another major).
source scripts/use-node.sh

SERVICES=(gateway links shops notifier)
DEMO_FILE=".local/demo.json"
DEFAULT_DEMO_EMAIL="demo@example.com"
DEMO_EMAIL="$DEFAULT_DEMO_EMAIL"
DEMO_PASSWORD="${DEMO_PASSWORD:-demo-password-2026}"
# The demo shop's webhooks go to a sample receiver on this machine (examples/webhook-receivers, README "Quickstart").
DEMO_WEBHOOK_URL="http://127.0.0.1:${DEMO_WEBHOOK_PORT:-4242}/webhooks"

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/payment_links}"
export WEBHOOK_ALLOW_PRIVATE_TARGETS=true
GATEWAY_URL="http://localhost:${GATEWAY_PORT:-8080}"
# The dashboard is served by the gateway under its public origin (the one its session cookie and CSRF check use).
DASHBOARD_BASE="${PUBLIC_BASE_URL:-$GATEWAY_URL}"
DASHBOARD_URL="${DASHBOARD_BASE%/}/dashboard"

say() { printf '\033[1mstart:\033[0m %s\n' "$*" >&2; }

PIDS=()
unset KAFKA_MOCK_PID
stop_services() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  PIDS=()
  if [ -n "${KAFKA_MOCK_PID:-}" ]; then bash scripts/local-deps.sh stop; fi
}
on_signal() {
  trap - INT TERM
  say "stopping"
  stop_services
  exit 0
}
trap on_signal INT TERM

# --- dependencies and build -------------------------------------------------------------------------------
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing packages (npm install, pinned by package-lock.json)"
  npm install --no-audit --no-fund
fi
say "building (tsc -b)"
npm run --silent build
eval "$(bash scripts/local-deps.sh)"
say "migrating $DATABASE_URL"
npm run --silent migrate

# --- demo merchant and shop -------------------------------------------------------------------------------
admin() { npm run --silent admin -- "$@"; }
# Reads one field of a JSON object given on stdin (jq may be missing on a fresh machine; node is not).
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];process.stdout.write(v==null?"":String(v))})' "$1"; }
sql() { psql "$DATABASE_URL" -tAq -v ON_ERROR_STOP=1 -c "$1"; }
# A fresh webhook secret: 256 random bits, base64url (the rotation in the dashboard makes the same kind).
new_webhook_secret() { node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))'; }

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
  live_and_test_keys="$(sql "SELECT count(*) FROM gateway.api_keys WHERE public_key IN ('${API_KEY//\'/}', '${TEST_API_KEY//\'/}') AND merchant_id::text = '${MERCHANT_ID//\'/}' AND revoked_at IS NULL")"
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
  if [ "$(sql "SELECT count(*) FROM gateway.merchants WHERE lower(email) = lower('$DEMO_EMAIL')")" != "0" ]; then
    # Its secret exists only as a hash, so its keys cannot be shown again: use a fresh address instead.
    DEMO_EMAIL="demo+$(date +%s)@example.com"
    say "$DEFAULT_DEMO_EMAIL exists without a record of its keys; creating $DEMO_EMAIL instead"
  fi
  # The password goes through stdin, not argv, where `ps` would show it.
  merchant="$(printf '%s' "$DEMO_PASSWORD" | admin merchant:create --email "$DEMO_EMAIL" --password-stdin --email-confirmed)"
  MERCHANT_ID="$(field merchant_id <<<"$merchant")" API_KEY="$(field api_key <<<"$merchant")"
  API_SECRET="$(field api_secret <<<"$merchant")"
  TEST_API_KEY="$(field test_api_key <<<"$merchant")" TEST_API_SECRET="$(field test_api_secret <<<"$merchant")"
  SHOP_ID=""
  say "demo merchant $DEMO_EMAIL created"
fi

# The shop's webhook secret goes through stdin too. A record from before the demo shop had one gets one now.
if [ -n "$SHOP_ID" ] && [ -n "$WEBHOOK_SECRET" ] && admin shop:update --shop "$SHOP_ID" --status approved >/dev/null; then
  say "demo shop $SHOP_ID: approved"
elif [ -n "$SHOP_ID" ] && WEBHOOK_SECRET="$(new_webhook_secret)" && printf '%s' "$WEBHOOK_SECRET" |
  admin shop:update --shop "$SHOP_ID" --status approved --webhook-url "$DEMO_WEBHOOK_URL" --webhook-secret-stdin >/dev/null; then
  say "demo shop $SHOP_ID: approved, webhooks to $DEMO_WEBHOOK_URL with a new secret"
else
  WEBHOOK_SECRET="$(new_webhook_secret)"
  shop="$(printf '%s' "$WEBHOOK_SECRET" | admin shop:create --merchant "$MERCHANT_ID" --name "Demo shop" --status approved \
    --webhook-url "$DEMO_WEBHOOK_URL" --webhook-secret-stdin)"
  SHOP_ID="$(field shop_id <<<"$shop")" CASHIER_KEY="$(field cashier_key <<<"$shop")"
  TEST_CASHIER_KEY="$(field test_cashier_key <<<"$shop")"
  say "demo shop $SHOP_ID created, webhooks to $DEMO_WEBHOOK_URL"
fi
# The same secret as the Standard Webhooks libraries take it: `whsec_` + base64 of its UTF-8 bytes.
STANDARD_WEBHOOKS_SECRET="whsec_$(node -e 'process.stdout.write(Buffer.from(process.argv[1], "utf8").toString("base64"))' "$WEBHOOK_SECRET")"

node -e 'const [f, ...kv] = process.argv.slice(1); const o = {}; for (let i = 0; i < kv.length; i += 2) o[kv[i]] = kv[i + 1];
  require("fs").writeFileSync(f, JSON.stringify(o, null, 2) + "\n", { mode: 0o600 });' "$DEMO_FILE" \
  email "$DEMO_EMAIL" password "$DEMO_PASSWORD" merchant_id "$MERCHANT_ID" api_key "$API_KEY" \
  api_secret "$API_SECRET" shop_id "$SHOP_ID" cashier_key "$CASHIER_KEY" webhook_secret "$WEBHOOK_SECRET" \
  test_api_key "$TEST_API_KEY" test_api_secret "$TEST_API_SECRET" test_cashier_key "$TEST_CASHIER_KEY"
cat >.local/demo.env <<EOF
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
# The demo shop's webhook secret (its webhooks go to $DEMO_WEBHOOK_URL), plain and in the whsec_ form.
export WEBHOOK_SECRET='$WEBHOOK_SECRET'
export STANDARD_WEBHOOKS_SECRET='$STANDARD_WEBHOOKS_SECRET'
# Local runs may point shops' webhooks at a listener on this machine (the admin CLI checks targets too).
export WEBHOOK_ALLOW_PRIVATE_TARGETS=true
EOF

# --- services ---------------------------------------------------------------------------------------------
# The prefixer ignores Ctrl-C (the terminal signals the whole process group): it must outlive its service,
# or the service's last log lines hit a closed pipe while it shuts down.
prefix() { trap '' INT TERM; exec awk -v p="$1" '{ printf "%-8s | %s\n", p, $0; fflush() }'; }
for name in "${SERVICES[@]}"; do
  node "services/$name/dist/main.js" > >(prefix "$name") 2>&1 &
  PIDS+=("$!")
done

# Wait until every service reports ready (ops ports 9100..9103), watching that none died meanwhile.
OPS_PORTS=(9100 9101 9102 9103)
ready=0
for _ in $(seq 1 150); do
  for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || break 2; done
  ready=1
  for port in "${OPS_PORTS[@]}"; do curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null || ready=0; done
  [ "$ready" -eq 1 ] && break
  sleep 0.2
done

if [ "$ready" -eq 1 ]; then
  cat >&2 <<EOF

================================ payment links: running ================================
 gateway   $GATEWAY_URL        Kafka  $KAFKA_BROKERS
 merchant  $DEMO_EMAIL / $DEMO_PASSWORD   (id $MERCHANT_ID)
 dashboard $DASHBOARD_URL   (sign in as $DEMO_EMAIL / $DEMO_PASSWORD)

 test mode (no money moves; docs/test-mode.md):
 export TEST_API_KEY='$TEST_API_KEY'
 export TEST_API_SECRET='$TEST_API_SECRET'
 export TEST_CASHIER_KEY='$TEST_CASHIER_KEY'
 live mode:
 export API_KEY='$API_KEY'
 export API_SECRET='$API_SECRET'
 export CASHIER_KEY='$CASHIER_KEY'
 both:
 export SHOP_ID='$SHOP_ID'
 export WEBHOOK_SECRET='$WEBHOOK_SECRET'
 export STANDARD_WEBHOOKS_SECRET='$STANDARD_WEBHOOKS_SECRET'
 (the same lines are in .local/demo.env: source .local/demo.env)

 The demo shop's webhooks go to $DEMO_WEBHOOK_URL; a sample receiver that verifies them:
 source .local/demo.env && PORT=${DEMO_WEBHOOK_PORT:-4242} node examples/webhook-receivers/node/standard-webhooks.mjs

 Create a test payment link:
 curl -sS -X POST $GATEWAY_URL/merchant/v1/payment-links \\
   -H "X-API-Key: \$TEST_API_KEY" -H "X-API-Secret: \$TEST_API_SECRET" -H 'Content-Type: application/json' \\
   -d "{\\"shop_id\\": \$SHOP_ID, \\"amount\\": \\"1500.00\\", \\"order_id\\": \\"demo-1\\"}"

 Pay it: open its checkout_url and press the test payment button, or
 curl -sS -X POST $GATEWAY_URL/p/<its id>/simulate -H 'Content-Type: application/json' -d '{"status": "paid"}'
 More: README.md "Quickstart". Ctrl-C stops everything.
========================================================================================

EOF
else
  say "not every service reported ready on /readyz (ops ports ${OPS_PORTS[*]}); see the logs above"
fi

# Runs until a signal (the trap exits 0) or until a service exits on its own, which is a failure.
set +e
wait -n -p DIED "${PIDS[@]}"
rc=$?
set -e
name="?"
for i in "${!PIDS[@]}"; do [ "${PIDS[$i]}" = "${DIED:-}" ] && name="${SERVICES[$i]}"; done
trap - INT TERM
say "$name exited (code $rc); stopping the others"
stop_services
exit $((rc == 0 ? 1 : rc))
