import type { RequestHandler, Response } from 'express';
import { bodyOf, setCommand } from '../context';

/**
 * Turns the parsed body into the command a route forwards, or throws 400 validation_failed.
 * Runs before idempotency, so an invalid request never claims an Idempotency-Key.
 */
export function validate(build: (body: unknown, res: Response) => unknown): RequestHandler {
  return (_req, res, next) => {
    setCommand(res, build(bodyOf(res), res));
    next();
  };
}
