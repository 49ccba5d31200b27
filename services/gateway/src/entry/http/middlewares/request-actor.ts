import type { RequestHandler } from 'express';
import { runAsRequest } from '../../../domain/request-context';

/**
 * Runs the rest of the request with its client (address as `trust proxy` makes it, user agent) known to whatever it
 * writes: audit entries and new sessions name them without each route passing them on. Authentication adds the user.
 */
export const requestActor: RequestHandler = (req, _res, next) => {
  runAsRequest({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null }, () => next());
};
