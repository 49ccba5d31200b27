#!/usr/bin/env bash
# Builds the Kafka mock-cluster helper (needs a C compiler and Debian's librdkafka-dev):
#   bash tools/kafka-mock/build.sh [output]      (default .local/bin/kafka-mock)
# Compiles to a name of its own, then renames: two builds at once (two Jest workers) never leave a torn binary.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$HERE/../../.local/bin/kafka-mock}"
mkdir -p "$(dirname "$OUT")"
TMP="$OUT.tmp.$$"
trap 'rm -f "$TMP"' EXIT
"${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra -o "$TMP" "$HERE/kafka-mock.c" -lrdkafka
mv -f "$TMP" "$OUT"
