# Sourced by scripts/start.sh: `PAYMENT_PROVIDERS=fakes npm start` runs the services' real adapters (Raiffeisen SBP,
# Heleket) against the local fakes (tools/provider-fakes) instead of the sandbox. Keys are made fresh for each run and
# reach the fakes and the services through the environment only (never a program argument).
# Expects: say, GATEWAY_URL, PIDS, SERVICES from start.sh.

RAIFFEISEN_FAKE_PORT="${RAIFFEISEN_FAKE_PORT:-8091}"
HELEKET_FAKE_PORT="${HELEKET_FAKE_PORT:-8092}"

provider_fakes_wanted() {
  case "${PAYMENT_PROVIDERS:-sandbox}" in
    sandbox) return 1 ;;
    fakes) return 0 ;;
    *) say "PAYMENT_PROVIDERS must be sandbox (the default) or fakes, not '${PAYMENT_PROVIDERS}'"; exit 2 ;;
  esac
}

# The environment both the fakes and the services read (the same names: the services' own settings).
provider_fakes_env() {
  hex() { node -e 'process.stdout.write(require("crypto").randomBytes(Number(process.env.N)).toString("hex"))'; }
  export PAYMENT_PROVIDER_SBP=raiffeisen PAYMENT_PROVIDER_CRYPTO=heleket
  export RAIFFEISEN_FAKE_PORT HELEKET_FAKE_PORT
  export RAIFFEISEN_SBP_API_URL="http://127.0.0.1:${RAIFFEISEN_FAKE_PORT}/api"
  export RAIFFEISEN_SBP_MERCHANT_ID="MA$(N=5 hex | tr a-f A-F)"
  RAIFFEISEN_SECRET_KEY="$(N=24 hex)" && export RAIFFEISEN_SECRET_KEY
  export RAIFFEISEN_FAKE_CALLBACK_URL="${PUBLIC_BASE_URL:-$GATEWAY_URL}/callbacks/v1/raiffeisen-sbp"
  export HELEKET_API_URL="http://127.0.0.1:${HELEKET_FAKE_PORT}"
  HELEKET_MERCHANT_ID="$(node -e 'process.stdout.write(require("crypto").randomUUID())')" && export HELEKET_MERCHANT_ID
  HELEKET_PAYMENT_KEY="$(N=24 hex)" && export HELEKET_PAYMENT_KEY
  HELEKET_PAYOUT_KEY="$(N=24 hex)" && export HELEKET_PAYOUT_KEY
}

# Starts the fakes' process beside the services; start.sh stops it with them.
start_provider_fakes() {
  node tools/provider-fakes/dist/main.js > >(prefix fakes) 2>&1 &
  PIDS+=("$!")
  SERVICES+=(fakes)
}

provider_fakes_help() {
  cat >&2 <<HELP
 Live links go through the real adapters to the local fakes (PAYMENT_PROVIDERS=fakes):
 Raiffeisen SBP $RAIFFEISEN_SBP_API_URL   Heleket $HELEKET_API_URL
 Create a live link (with \$API_KEY / \$API_SECRET), then choose the method and pay it at the fake:
 curl -sS -X POST $GATEWAY_URL/p/<its id>/select -H 'Content-Type: application/json' -d '{"method": "sbp"}'
 curl -sS -X POST http://127.0.0.1:$RAIFFEISEN_FAKE_PORT/_fake/qrs/<its gateway_payment_id>/pay -H 'Content-Type: application/json' -d '{}'
 or crypto:
 curl -sS -X POST $GATEWAY_URL/p/<its id>/select -H 'Content-Type: application/json' -d '{"method": "crypto", "network": "USDT-TRC20"}'
 curl -sS -X POST http://127.0.0.1:$HELEKET_FAKE_PORT/_fake/invoices/<its gateway_payment_id>/status -H 'Content-Type: application/json' -d '{"status": "paid"}'
 The fake's signed callback pays the link and the demo shop gets payment.succeeded. Faults (5xx, hang, delay):
 POST http://127.0.0.1:$RAIFFEISEN_FAKE_PORT/_fake/faults, POST http://127.0.0.1:$HELEKET_FAKE_PORT/_fake/faults (docs/providers.md).
========================================================================================

HELP
}
