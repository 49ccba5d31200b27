import { merchantPayoutsRoutes, sessionPayoutsRoutes } from './http/routes/payouts.routes';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { checkoutPageRoutes } from './checkout/checkout-page.routes';
import type { HttpDeps } from './http/deps';
import { chain } from './http/middlewares/chain';
import { errorHandler } from './http/middlewares/error-handler';
import { routeNotFound } from './http/middlewares/not-found';
import { requestActor } from './http/middlewares/request-actor';
import { requestId } from './http/middlewares/request-id';
import { parseQuery, undecodablePathAsText } from './http/strict-query';
import { authRoutes } from './http/routes/auth.routes';
import { cashierPaymentsRoutes } from './http/routes/cashier-payments.routes';
import { checkoutRoutes } from './http/routes/checkout.routes';
import { dashboardLinksRoutes } from './http/routes/dashboard-links.routes';
import { mePreferencesRoutes } from './http/routes/me-preferences.routes';
import { merchantLinksRoutes } from './http/routes/merchant-links.routes';
import { providerCallbackRoutes } from './http/routes/provider-callbacks.routes';
import { heleketPayoutCallbackRoutes } from './http/routes/heleket-payout-callbacks.routes';
import { sessionDeliveriesRoutes, webhookDeliveriesRoutes } from './http/routes/webhook-deliveries.routes';
import { accountRoutes } from './http/routes/account.routes';
import { apiKeysRoutes } from './http/routes/api-keys.routes';
import { auditEventsRoutes } from './http/routes/audit-events.routes';
import { merchantShopsRoutes } from './http/routes/merchant-shops.routes';
import { openApiRoutes } from './http/routes/openapi.routes';
import { merchantBalanceRoutes, sessionBalanceRoutes } from './http/routes/balance.routes';
import { sessionReportRoutes } from './http/routes/report.routes';
import { merchantEventsRoutes, sessionEventsRoutes } from './http/routes/events.routes';
import { merchantRefundsRoutes, sessionRefundsRoutes } from './http/routes/refunds.routes';
import { merchantReportsRoutes, sessionReportsRoutes } from './http/routes/reports.routes';
import { merchantUnresolvedRoutes, sessionUnresolvedRoutes } from './http/routes/unresolved-payments.routes';

import { sessionShopsRoutes } from './http/routes/session-shops.routes';
import { teamRoutes } from './http/routes/team.routes';
import { meSessionsRoutes } from './http/routes/me-sessions.routes';
import { passkeysRoutes } from './http/routes/passkeys.routes';
import { passkeyOptionsRoutes } from './http/routes/passkey-options.routes';
import { twoFactorRoutes } from './http/routes/two-factor.routes';
import { dashboardRoutes } from './dashboard/dashboard.routes';
import { docsRoutes } from './docs/docs.routes';

/**
 * The merchant-facing HTTP API. No body parser is mounted globally: create routes read JSON
 * themselves (after authentication) so amounts keep their source text. No CORS: these routes are
 * for servers and the same-origin dashboard only. The buyer's checkout (`/p`) and provider callbacks
 * (`/callbacks/v1`) carry no credentials: the link id and the provider's signature stand in for them.
 *
 * It sits above `entry/http` (the JSON API) and `entry/checkout` (the buyer's HTML pages) because it composes
 * both: the checkout pages use http's error mapping and middlewares, so neither directory imports the other back.
 */
export function createHttpApp(deps: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxyHops);
  app.set('query parser', parseQuery);
  // One layer (one span when traced) for what every response gets: its id, its access log line, security headers,
  // and its actor (address, user agent; the user once authenticated) for what it writes.
  app.use(chain(requestId(deps.log), requestActor, helmet(), undecodablePathAsText));
  app.use('/merchant/v1/payment-links', merchantLinksRoutes(deps));
  app.use('/api/v1/payment-links', dashboardLinksRoutes(deps));
  app.use('/api/v1/merchant/payments', cashierPaymentsRoutes(deps));
  // `/api/v1/auth/login/2fa/passkey-options` and `/step-up/passkey-options`, beside sign-in's other steps.
  app.use('/api/v1/auth', passkeyOptionsRoutes(deps));
  app.use('/api/v1/auth', authRoutes(deps));
  app.use('/merchant/v1/webhook-deliveries', webhookDeliveriesRoutes(deps));
  app.use('/merchant/v1/shops', merchantShopsRoutes(deps));
  app.use('/api/v1/shops', sessionShopsRoutes(deps));
  app.use('/api/v1/webhook-deliveries', sessionDeliveriesRoutes(deps));
  app.use('/api/v1/api-keys', apiKeysRoutes(deps));
  app.use('/api/v1/audit-events', auditEventsRoutes(deps));
  // Refunds (`/payment-links/{id}/refunds`, `/refunds`) and the balance (`/balance…`, `/shops/{id}/balance`) span
  // several resources, so they mount at the API's root; their paths do not meet the routers above.
  app.use('/merchant/v1', merchantRefundsRoutes(deps));
  app.use('/api/v1', sessionRefundsRoutes(deps));
  app.use('/merchant/v1', merchantBalanceRoutes(deps));
  app.use('/merchant/v1', merchantPayoutsRoutes(deps));
  app.use('/api/v1', sessionPayoutsRoutes(deps));
  app.use('/api/v1', sessionBalanceRoutes(deps));
  app.use('/merchant/v1', merchantReportsRoutes(deps));
  app.use('/api/v1', sessionReportsRoutes(deps));
  app.use('/api/v1', sessionReportRoutes(deps));
  app.use('/merchant/v1/unresolved-payments', merchantUnresolvedRoutes(deps));
  app.use('/api/v1/unresolved-payments', sessionUnresolvedRoutes(deps));
  app.use('/merchant/v1/events', merchantEventsRoutes(deps));
  app.use('/api/v1/events', sessionEventsRoutes(deps));
  app.use('/api/v1/me/sessions', meSessionsRoutes(deps));
  app.use('/api/v1/me/2fa/passkeys', passkeysRoutes(deps));
  app.use('/api/v1/me/preferences', mePreferencesRoutes(deps));
  // `/api/v1/me`, `/api/v1/auth/password` and `/api/v1/account`.
  app.use('/api/v1', accountRoutes(deps));
  app.use('/api/v1/me/2fa', twoFactorRoutes(deps));
  // `/api/v1/members` and `/api/v1/invitations`.
  app.use('/api/v1', teamRoutes(deps));
  app.use('/dashboard', dashboardRoutes(deps));
  app.use('/docs', docsRoutes(deps));
  app.use('/p', checkoutRoutes(deps));
  app.use('/p', checkoutPageRoutes(deps));
  // Before `/callbacks/v1/{provider}`: Heleket's payout webhooks are not a payment provider's callbacks.
  app.use('/callbacks/v1/heleket-payouts', heleketPayoutCallbackRoutes(deps));
  app.use('/callbacks/v1', providerCallbackRoutes(deps));
  app.use('/openapi.json', openApiRoutes());
  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
