# syntax=docker/dockerfile:1
# Every image of the system from one file, one target each, built from the repository root (BuildKit):
#   docker build --target gateway  -t payment-links-gateway  .    # likewise links, shops, notifier; gateway also carries the admin CLI
#   docker build --target migrate  -t payment-links-migrate  .    # one-shot: applies every service's migrations
# The stages `build` and `runtime` are shared, so BuildKit compiles the code and installs the production
# dependencies once for all five images; a target adds only its own compiled code.

# Compiles every workspace. Dev dependencies (TypeScript) live here only.
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY . .
# `npm install` with the lockfile, not `npm ci`: the registry serves only this platform's builds of the native
# optional dev packages (@swc/core-*, @unrs/resolver-binding-*), so the lockfile cannot list the others and a
# full `npm ci` refuses it (see .ci/run). Production dependencies have none of those: `runtime` uses `npm ci`.
RUN --mount=type=cache,target=/root/.npm \
    npm install --no-audit --no-fund \
 && npm run build

# The base of every image: production dependencies exactly as the lockfile pins them, on a clean Node image
# with no compiler, no dev tool and no source. Only the manifests come in, so this layer is rebuilt when a
# dependency changes, not when code does. npm needs every workspace's package.json to read the lockfile.
FROM node:26-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci's postinstall applies them (patch-package): kafkajs's idle request queue spins a 1 ms timer without its patch.
COPY patches patches/
COPY libs/bus/package.json libs/bus/
COPY libs/client/package.json libs/client/
COPY libs/config/package.json libs/config/
COPY libs/contracts/package.json libs/contracts/
COPY libs/db/package.json libs/db/
COPY libs/errors/package.json libs/errors/
COPY libs/money/package.json libs/money/
COPY libs/openapi/package.json libs/openapi/
COPY libs/providers/package.json libs/providers/
COPY libs/telemetry/package.json libs/telemetry/
COPY libs/testing/package.json libs/testing/
COPY libs/webhook-target/package.json libs/webhook-target/
COPY services/gateway/package.json services/gateway/
COPY services/links/package.json services/links/
COPY services/notifier/package.json services/notifier/
COPY services/shops/package.json services/shops/
COPY tools/admin/package.json tools/admin/
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund
# Root owns the files; every process runs as the unprivileged `node` user (uid 1000) and can change none of them.
USER 1000:1000

FROM runtime AS gateway
COPY --from=build /app/libs/errors/dist libs/errors/dist
COPY --from=build /app/libs/money/dist libs/money/dist
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/openapi/dist libs/openapi/dist
COPY --from=build /app/libs/bus/dist libs/bus/dist
COPY --from=build /app/libs/db/dist libs/db/dist
COPY --from=build /app/libs/config/dist libs/config/dist
COPY --from=build /app/libs/telemetry/dist libs/telemetry/dist
COPY --from=build /app/libs/providers/dist libs/providers/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY services/gateway/migrations services/gateway/migrations
# The checkout page reads its CSS and script from src (static-assets.ts resolves them from dist).
COPY services/gateway/src/entry/checkout/assets services/gateway/src/entry/checkout/assets
# The operators' CLI rides along, so an operator runs it where the cluster's database and bus are reachable:
#   kubectl exec -i deploy/gateway -- node tools/admin/dist/main.js shop:list
# It uses the owning services' repositories (their compiled code only: no migrations, nothing of theirs starts).
COPY --from=build /app/libs/webhook-target/dist libs/webhook-target/dist
COPY --from=build /app/services/shops/dist services/shops/dist
COPY --from=build /app/services/links/dist services/links/dist
COPY --from=build /app/services/notifier/dist services/notifier/dist
COPY --from=build /app/tools/admin/dist tools/admin/dist
EXPOSE 8080 9100
# No curl in slim images: node asks the ops port (OPS_PORT, read at check time) whether the process is alive.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9100) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "services/gateway/dist/main.js"]

FROM runtime AS links
COPY --from=build /app/libs/errors/dist libs/errors/dist
COPY --from=build /app/libs/money/dist libs/money/dist
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/bus/dist libs/bus/dist
COPY --from=build /app/libs/db/dist libs/db/dist
COPY --from=build /app/libs/config/dist libs/config/dist
COPY --from=build /app/libs/telemetry/dist libs/telemetry/dist
COPY --from=build /app/libs/providers/dist libs/providers/dist
COPY --from=build /app/services/links/dist services/links/dist
COPY services/links/migrations services/links/migrations
EXPOSE 9101
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9101) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "services/links/dist/main.js"]

FROM runtime AS shops
COPY --from=build /app/libs/errors/dist libs/errors/dist
COPY --from=build /app/libs/money/dist libs/money/dist
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/bus/dist libs/bus/dist
COPY --from=build /app/libs/db/dist libs/db/dist
COPY --from=build /app/libs/config/dist libs/config/dist
COPY --from=build /app/libs/telemetry/dist libs/telemetry/dist
COPY --from=build /app/libs/webhook-target/dist libs/webhook-target/dist
COPY --from=build /app/services/shops/dist services/shops/dist
COPY services/shops/migrations services/shops/migrations
EXPOSE 9102
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9102) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "services/shops/dist/main.js"]

FROM runtime AS notifier
COPY --from=build /app/libs/errors/dist libs/errors/dist
COPY --from=build /app/libs/money/dist libs/money/dist
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/bus/dist libs/bus/dist
COPY --from=build /app/libs/db/dist libs/db/dist
COPY --from=build /app/libs/config/dist libs/config/dist
COPY --from=build /app/libs/telemetry/dist libs/telemetry/dist
COPY --from=build /app/libs/webhook-target/dist libs/webhook-target/dist
COPY --from=build /app/services/notifier/dist services/notifier/dist
COPY services/notifier/migrations services/notifier/migrations
EXPOSE 9103
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9103) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "services/notifier/dist/main.js"]

# The one-shot migrations job: every service's compiled migrate function and its migrations, then it exits.
FROM runtime AS migrate
COPY --from=build /app/libs/errors/dist libs/errors/dist
COPY --from=build /app/libs/money/dist libs/money/dist
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/openapi/dist libs/openapi/dist
COPY --from=build /app/libs/bus/dist libs/bus/dist
COPY --from=build /app/libs/db/dist libs/db/dist
COPY --from=build /app/libs/config/dist libs/config/dist
COPY --from=build /app/libs/telemetry/dist libs/telemetry/dist
COPY --from=build /app/libs/providers/dist libs/providers/dist
COPY --from=build /app/libs/webhook-target/dist libs/webhook-target/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY services/gateway/migrations services/gateway/migrations
COPY --from=build /app/services/shops/dist services/shops/dist
COPY services/shops/migrations services/shops/migrations
COPY --from=build /app/services/links/dist services/links/dist
COPY services/links/migrations services/links/migrations
COPY --from=build /app/services/notifier/dist services/notifier/dist
COPY services/notifier/migrations services/notifier/migrations
COPY scripts/migrate-all.js scripts/migrate-all.js
# A one-shot job: nothing to probe.
HEALTHCHECK NONE
CMD ["node", "scripts/migrate-all.js"]
