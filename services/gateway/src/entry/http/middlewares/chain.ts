import type { NextFunction, RequestHandler } from 'express';

/**
 * Runs middlewares one after another as one express handler. Under express each would be a layer of the
 * router, and with tracing on each layer is a span of its own: a merchant route cost eight spans (and eight
 * trips through the router) where the HTTP span and the route's own say as much. A step goes on by calling
 * `next()`, ends the chain by answering, and fails it by throwing, rejecting or calling `next(err)`, exactly
 * as under express (`next('route')` is not supported: no route here uses it). Steps that finish at once run
 * without any promise in between: with tracing on, every promise costs a context-tracking hook.
 */
export function chain(...steps: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    const run = (index: number): void => {
      const step = steps[index];
      if (step === undefined) {
        next();
        return;
      }
      let done = false;
      const fail = (e: unknown): void => {
        if (done) return;
        done = true;
        next(e);
      };
      const stepNext: NextFunction = (err?: unknown) => {
        if (done) return;
        done = true;
        if (err === undefined || err === null) run(index + 1);
        else next(err);
      };
      let result: unknown;
      try {
        result = step(req, res, stepNext);
      } catch (e) {
        fail(e);
        return;
      }
      if (result instanceof Promise) result.then(undefined, fail);
    };
    run(0);
  };
}
