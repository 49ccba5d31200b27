import { Router } from 'express';
import type { HttpDeps } from '../deps';

// Placeholder while the session API is built: filled in by its owner.
export function sessionShopsRoutes(_deps: HttpDeps): Router {
  return Router();
}
