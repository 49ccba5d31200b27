#!/usr/bin/env bash
# `npm test [-- jest args]`: local dependencies (Postgres, Redis, NATS, a Kafka mock unless KAFKA_BROKERS is
# set) -> build -> typecheck -> lint -> import cycles -> format check -> knip -> OpenAPI lint -> jest. Exits with the first failing step's code, else
# jest's; stops the Kafka mock it started.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p .local
# Node of the .nvmrc line (fetched into .local/node/ once when the machine's is another major).
source scripts/use-node.sh

unset KAFKA_MOCK_PID
cleanup() { if [ -n "${KAFKA_MOCK_PID:-}" ]; then bash scripts/local-deps.sh stop || true; fi; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

eval "$(bash scripts/local-deps.sh)"
# The checkout page's browser tests drive Debian's chromium (no browser downloads here).
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  echo "test: installing chromium for the browser tests" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium </dev/null >/dev/null
fi
export KAFKA_BROKERS
# kafkajs 2 warns about its partitioner change on every producer; the services choose theirs explicitly.
export KAFKAJS_NO_PARTITIONER_WARNING=1

echo "test: building (tsc -b)" >&2
npm run --silent build
echo "test: typechecking" >&2
npm run --silent typecheck
# Zero findings or no tests: a wrong import (pg in domain/, one service into another) fails here.
echo "test: linting (eslint)" >&2
npm run --silent lint
# No import cycles, `import type` included (.dependency-cruiser.cjs): each is a type or helper on the wrong side of
# a boundary. Two cycles in code being reworked elsewhere wait in .dependency-cruiser-known-violations.json; any other fails.
echo "test: looking for import cycles (dependency-cruiser)" >&2
npm run --silent cycles
echo "test: checking the format (prettier; npm run format fixes it)" >&2
npm run --silent format:check >/dev/null
# Unused files, exports and dependencies, and imports no package.json lists (knip.jsonc): first over everything,
# then over production code alone, where a workspace's own dependencies must cover its src/ (the root's do not count).
echo "test: looking for unused code and unlisted dependencies (knip)" >&2
npx knip --no-progress
npx knip --no-progress --strict --dependencies
# The OpenAPI document as committed (docs/openapi.json, what GET /openapi.json serves; a jest test fails when it is stale)
# against Redocly's recommended rules (redocly.yaml): zero errors. Offline: no telemetry, no update check (the npm script).
echo "test: linting the OpenAPI document (redocly)" >&2
npm run --silent lint:openapi

RESULTS=".local/jest-results.json"
rm -f "$RESULTS"
set +e
npx jest --maxWorkers=2 --json --outputFile="$RESULTS" "$@"
rc=$?
set -e

# One plain closing line, so a run is judged by what it counted as well as by its exit code.
if [ -f "$RESULTS" ]; then
  RESULTS="$RESULTS" node -e 'const r = require(require("path").resolve(process.env.RESULTS));
    console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));'
fi
exit "$rc"
