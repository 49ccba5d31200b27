import { Router } from 'express';
import type { HttpDeps } from '../http/deps';

// Placeholder while the dashboard is built: serves the built single-page app under /dashboard.
export function dashboardRoutes(_deps: HttpDeps): Router {
  return Router();
}
