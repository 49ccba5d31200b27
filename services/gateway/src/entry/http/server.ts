import express, { type Express } from 'express';
import helmet from 'helmet';
import type { HttpDeps } from './deps';
import { errorHandler } from './middlewares/error-handler';
import { routeNotFound } from './middlewares/not-found';
import { requestId } from './middlewares/request-id';
import { authRoutes } from './routes/auth.routes';
import { cashierPaymentsRoutes } from './routes/cashier-payments.routes';
import { dashboardLinksRoutes } from './routes/dashboard-links.routes';
import { merchantLinksRoutes } from './routes/merchant-links.routes';

/**
 * The merchant-facing HTTP API. No body parser is mounted globally: create routes read JSON
 * themselves (after authentication) so amounts keep their source text. No CORS: these routes are
 * for servers and the same-origin dashboard only.
 */
export function createHttpApp(deps: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId(deps.log));
  app.use(helmet());
  app.use('/merchant/v1/payment-links', merchantLinksRoutes(deps));
  app.use('/api/v1/payment-links', dashboardLinksRoutes(deps));
  app.use('/api/v1/merchant/payments', cashierPaymentsRoutes(deps));
  app.use('/api/v1/auth', authRoutes(deps));
  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
