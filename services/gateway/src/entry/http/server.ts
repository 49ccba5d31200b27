import express, { type Express } from 'express';
import helmet from 'helmet';
import { checkoutPageRoutes } from '../checkout/checkout-page.routes';
import type { HttpDeps } from './deps';
import { chain } from './middlewares/chain';
import { errorHandler } from './middlewares/error-handler';
import { routeNotFound } from './middlewares/not-found';
import { requestId } from './middlewares/request-id';
import { authRoutes } from './routes/auth.routes';
import { cashierPaymentsRoutes } from './routes/cashier-payments.routes';
import { checkoutRoutes } from './routes/checkout.routes';
import { dashboardLinksRoutes } from './routes/dashboard-links.routes';
import { merchantLinksRoutes } from './routes/merchant-links.routes';
import { providerCallbackRoutes } from './routes/provider-callbacks.routes';
import { webhookDeliveriesRoutes } from './routes/webhook-deliveries.routes';

/**
 * The merchant-facing HTTP API. No body parser is mounted globally: create routes read JSON
 * themselves (after authentication) so amounts keep their source text. No CORS: these routes are
 * for servers and the same-origin dashboard only. The buyer's checkout (`/p`) and provider callbacks
 * (`/callbacks/v1`) carry no credentials: the link id and the provider's signature stand in for them.
 */
export function createHttpApp(deps: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxyHops);
  // One layer (one span when traced) for what every response gets: its id, its access log line, security headers.
  app.use(chain(requestId(deps.log), helmet()));
  app.use('/merchant/v1/payment-links', merchantLinksRoutes(deps));
  app.use('/api/v1/payment-links', dashboardLinksRoutes(deps));
  app.use('/api/v1/merchant/payments', cashierPaymentsRoutes(deps));
  app.use('/api/v1/auth', authRoutes(deps));
  app.use('/merchant/v1/webhook-deliveries', webhookDeliveriesRoutes(deps));
  app.use('/p', checkoutRoutes(deps));
  app.use('/p', checkoutPageRoutes(deps));
  app.use('/callbacks/v1', providerCallbackRoutes(deps));
  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
