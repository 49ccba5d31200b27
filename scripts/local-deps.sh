#!/usr/bin/env bash
# Makes sure the local dependencies answer: PostgreSQL (127.0.0.1:5432) with the `payment_links` database,
# Redis (6379), NATS with JetStream (4222) and, unless KAFKA_BROKERS is already set, a Kafka-protocol mock
# cluster (librdkafka's, run by kcat) in the background.
#
#   eval "$(bash scripts/local-deps.sh)"     # exports KAFKA_BROKERS (and KAFKA_MOCK_PID if it started one)
#   bash scripts/local-deps.sh stop          # stops the Kafka mock recorded in .local/kafka-mock.pid
#
# stdout carries only `export` lines; progress goes to stderr. Idempotent: when everything already runs it
# only checks (well under a second) and reuses the running mock.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOCAL_DIR="$ROOT/.local"
MOCK_PID_FILE="$LOCAL_DIR/kafka-mock.pid"
MOCK_LOG="$LOCAL_DIR/kafka-mock.log"
DB_NAME="payment_links"

say() { echo "local-deps: $*" >&2; }
die() { say "$*"; exit 1; }
up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

APT_UPDATED=0
apt_install() {
  say "installing Debian package $1"
  if [ "$APT_UPDATED" -eq 0 ]; then as_root apt-get update -qq >&2; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >&2
}
# Installs a Debian package when the command it provides is missing.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  apt_install "$2"
  command -v "$1" >/dev/null 2>&1 || die "$2 installed but $1 is still missing"
}

mock_alive() {
  [ -f "$MOCK_PID_FILE" ] || return 1
  local pid
  pid="$(cat "$MOCK_PID_FILE")"
  # The pid must still be our kcat (pids get reused after a reboot).
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'test.mock.num.brokers'
}

# librdkafka logs, at notice level, "... Mock cluster enabled: original bootstrap.servers and security.protocol
# ignored and replaced with 127.0.0.1:PORT"; with `-d mock` it also logs "... bootstrap.servers=127.0.0.1:PORT".
# We run it without `-d mock` (that logs every request, so the log would grow without end) and accept both.
mock_brokers() {
  [ -f "$MOCK_LOG" ] || return 1
  sed -n -e 's/.*replaced with \([^ ]*\).*/\1/p' -e 's/.*Mock cluster [^ ]* bootstrap\.servers=\([^ ]*\).*/\1/p' "$MOCK_LOG" | head -n1
}

stop_mock() {
  if mock_alive; then
    local pid
    pid="$(cat "$MOCK_PID_FILE")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    say "kafka mock (pid $pid) stopped"
  fi
  rm -f "$MOCK_PID_FILE"
}

if [ "${1:-}" = "stop" ]; then
  stop_mock
  exit 0
fi

# --- PostgreSQL -------------------------------------------------------------------------------------------
if ! up 5432; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt_install postgresql
  fi
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start >&2
  say "postgres: started"
else
  say "postgres: up"
fi

# --- Redis ------------------------------------------------------------------------------------------------
if ! up 6379; then
  need redis-server redis-server
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2
  say "redis: started"
else
  say "redis: up"
fi

# --- NATS with JetStream ----------------------------------------------------------------------------------
if ! up 4222; then
  need nats-server nats-server
  as_root mkdir -p /var/lib/nats-server
  as_root start-stop-daemon --start --oknodo --background --exec "$(command -v nats-server)" -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log >&2
  say "nats: started"
else
  say "nats: up"
fi

for _ in $(seq 1 100); do up 5432 && up 6379 && up 4222 && break; sleep 0.1; done
up 5432 || die "postgres did not come up on 5432"
up 6379 || die "redis did not come up on 6379"
up 4222 || die "nats did not come up on 4222"

# --- The database -----------------------------------------------------------------------------------------
need psql postgresql-client
PSQL=(psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -v ON_ERROR_STOP=1 -tAq)
# A fresh Debian cluster asks for a password over TCP; the local setup (like the dev machines and CI) trusts
# loopback connections, so DATABASE_URL needs no password.
trust_loopback() {
  local hba
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    as_root pg_ctlcluster --skip-systemctl-redirect "$(basename "$(dirname "$(dirname "$hba")")")" main reload >&2
  done
  say "postgres: loopback connections now trusted"
}
exists="" out="" connected=0
for _ in $(seq 1 50); do
  # Right after a start Postgres may still refuse connections ("the database system is starting up").
  if out="$(PGCONNECT_TIMEOUT=3 "${PSQL[@]}" -w -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'" 2>&1)"; then
    exists="$out" connected=1
    break
  fi
  if grep -qiE 'password|authentication failed' <<<"$out"; then trust_loopback; fi
  sleep 0.2
done
[ "$connected" -eq 1 ] || die "cannot connect to postgres as user postgres: $out"
if [ "$exists" != "1" ]; then
  "${PSQL[@]}" -c "CREATE DATABASE $DB_NAME" >&2
  say "database $DB_NAME: created"
else
  say "database $DB_NAME: exists"
fi

# --- Kafka ------------------------------------------------------------------------------------------------
if [ -n "${KAFKA_BROKERS:-}" ]; then
  say "kafka: using KAFKA_BROKERS=$KAFKA_BROKERS"
  printf "export KAFKA_BROKERS='%s'\n" "$KAFKA_BROKERS"
  exit 0
fi

mkdir -p "$LOCAL_DIR"
brokers=""
if mock_alive && brokers="$(mock_brokers)" && [ -n "$brokers" ] && up "${brokers##*:}"; then
  say "kafka mock: up (pid $(cat "$MOCK_PID_FILE")) at $brokers"
  printf "export KAFKA_BROKERS='%s'\n" "$brokers"
  exit 0
fi

stop_mock
need kcat kcat
: >"$MOCK_LOG"
# setsid: its own session, so a Ctrl-C in the terminal does not kill it behind the back of whoever stops it.
# Topics auto-create on first use (4 partitions); a consumer on _keepalive keeps the mock cluster alive.
setsid kcat -q -b mock -C -t _keepalive -X test.mock.num.brokers=1 </dev/null >>"$MOCK_LOG" 2>&1 &
pid=$!
echo "$pid" >"$MOCK_PID_FILE"
for _ in $(seq 1 100); do
  brokers="$(mock_brokers || true)"
  [ -n "$brokers" ] && up "${brokers##*:}" && break
  kill -0 "$pid" 2>/dev/null || die "kcat exited: $(cat "$MOCK_LOG")"
  sleep 0.05
done
[ -n "$brokers" ] || { stop_mock; die "kafka mock did not log its bootstrap servers: $(cat "$MOCK_LOG")"; }
say "kafka mock: started (pid $pid) at $brokers"
printf "export KAFKA_BROKERS='%s'\n" "$brokers"
printf "export KAFKA_MOCK_PID='%s'\n" "$pid"
