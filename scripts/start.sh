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
# PAYMENT_PROVIDERS=fakes: the real adapters against the local provider fakes (the default is the sandbox).
source scripts/provider-fakes.sh
if provider_fakes_wanted; then provider_fakes_env; fi

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
# Made on the first run and reused later (scripts/demo-setup.sh); its record is .local/demo.json.
DEMO_PASSWORD="$DEMO_PASSWORD" DEMO_WEBHOOK_URL="$DEMO_WEBHOOK_URL" DEMO_DIR=.local bash scripts/demo-setup.sh
# One field of the demo's record; the name reaches node through its environment, like every value here.
demo() { FIELD="$1" node -e 'const v=JSON.parse(require("fs").readFileSync(0,"utf8"))[process.env.FIELD];process.stdout.write(v==null?"":String(v))' <"$DEMO_FILE"; }
DEMO_EMAIL="$(demo email)" DEMO_PASSWORD="$(demo password)" MERCHANT_ID="$(demo merchant_id)"
API_KEY="$(demo api_key)" API_SECRET="$(demo api_secret)" CASHIER_KEY="$(demo cashier_key)" SHOP_ID="$(demo shop_id)"
TEST_API_KEY="$(demo test_api_key)" TEST_API_SECRET="$(demo test_api_secret)" TEST_CASHIER_KEY="$(demo test_cashier_key)"
WEBHOOK_SECRET="$(demo webhook_secret)"
STANDARD_WEBHOOKS_SECRET="$(demo standard_webhooks_secret)"

# --- services ---------------------------------------------------------------------------------------------
# The prefixer ignores Ctrl-C (the terminal signals the whole process group): it must outlive its service,
# or the service's last log lines hit a closed pipe while it shuts down.
prefix() { trap '' INT TERM; exec awk -v p="$1" '{ printf "%-8s | %s\n", p, $0; fflush() }'; }
for name in "${SERVICES[@]}"; do
  node "services/$name/dist/main.js" > >(prefix "$name") 2>&1 &
  PIDS+=("$!")
done
if provider_fakes_wanted; then start_provider_fakes; fi

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
  if provider_fakes_wanted; then provider_fakes_help; fi
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
