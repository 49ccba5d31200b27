import type { RequestHandler } from 'express';
import { methodNotAllowed, notFound } from '@pl/errors';

/** Last in the chain: no route matched the path. */
export const routeNotFound: RequestHandler = () => {
  throw notFound('No such route');
};

/** For a known path with a method it does not serve: 405 with the methods it does serve. */
export function wrongMethod(allowed: readonly string[]): RequestHandler {
  const allow = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : [...allowed];
  return (req, res) => {
    res.set('Allow', allow.join(', '));
    throw methodNotAllowed(`Method ${req.method} is not allowed here; use ${allow.join(' or ')}`);
  };
}
