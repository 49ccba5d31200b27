#!/usr/bin/env bash
# Measures one bench scenario for an earlier commit and for this working tree, alternating the two builds so
# both meet the same machine, and prints every run's figure and the median of each side:
#
#   bash scripts/bench-against.sh <commit> [runs=6] [scenario=payment]      # BENCH_SECONDS (60) per run
#
# Why: one run's p99 moves by more than the differences worth judging (payment at 200/s, the same build:
# 20–40 ms; see docs/benchmarks.md), so a change is judged by the median of several long runs per side,
# taken in turn. The earlier commit is checked out into .local/bench/against-<commit>/ (a git worktree,
# reused), shares this tree's node_modules and is built once. Run it on a quiet machine: anything else
# running lands in both sides' tails unevenly.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rev="${1:?usage: bench-against.sh <commit> [runs] [scenario]}"
runs="${2:-6}"
scenario="${3:-payment}"
export BENCH_SECONDS="${BENCH_SECONDS:-60}"

source "$ROOT/scripts/use-node.sh"
sha="$(git -C "$ROOT" rev-parse --short "$rev^{commit}")"
base="$ROOT/.local/bench/against-$sha"
out="$ROOT/.local/bench/against-$sha-runs"
mkdir -p "$out"

if [ ! -d "$base" ]; then
  git -C "$ROOT" worktree add --detach "$base" "$sha" >&2
  # The same installed packages: the builds differ in our code only.
  for dir in . services/* libs/*; do
    if [ -d "$ROOT/$dir/node_modules" ] && [ -d "$base/$dir" ]; then ln -sfn "$ROOT/$dir/node_modules" "$base/$dir/node_modules"; fi
  done
  (cd "$base" && npm run --silent build >"$out/build.log" 2>&1) || { echo "bench-against: building $sha failed, see $out/build.log" >&2; exit 1; }
fi

# The table row of the scenario's judged latency: callback → webhook for payment, else the gateway's row.
row_of() {
  case "$scenario" in
    payment) grep -m1 'callback answered → webhook' "$1" ;;
    *) grep -m1 -E "^\| $scenario[^|]*\| gateway" "$1" ;;
  esac | awk -F'|' '{ gsub(/ /, "", $6); print $6 }'
}

declare -a before=() after=()
for i in $(seq 1 "$runs"); do
  for side in before after; do
    dir="$ROOT"
    [ "$side" = before ] && dir="$base"
    log="$out/$side-$i.log"
    (cd "$dir" && npm run --silent bench -- "$scenario") >"$log" 2>&1 || { echo "bench-against: run $side-$i failed, see $log" >&2; exit 1; }
    p99="$(row_of "$log")"
    echo "run $i $side ($([ "$side" = before ] && echo "$sha" || echo 'this tree')): p99 $p99 ms"
    if [ "$side" = before ]; then before+=("$p99"); else after+=("$p99"); fi
  done
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mb="$(median "${before[@]}")"
ma="$(median "${after[@]}")"
echo "median p99: $sha $mb ms, this tree $ma ms, ratio $(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.2f", a / b }')"
