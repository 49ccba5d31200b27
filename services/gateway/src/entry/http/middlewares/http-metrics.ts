import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { DURATION_BUCKETS, Histogram, type Registry } from '@pl/telemetry';
import { modeLabelOf } from '../context';

/** The label of a request no route matched (404s, scans): one series, not one per raw path. */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * Captures the template of the route that matched (`/merchant/v1/payment-links/:id`). The router assigns
 * `req.route` when a route matches, while `req.baseUrl` is still the mount path of that route's router; by
 * the time an error reaches the app's error handler the router has restored `baseUrl`, so it is read here
 * and not at the end of the response.
 */
function captureRouteTemplate(req: IncomingMessage): () => string {
  let template = UNMATCHED_ROUTE;
  let route: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: unknown) {
      route = value;
      const path = (value as { path?: unknown } | undefined)?.path;
      // A router's own root route ('/') under a mount path reads as the mount path.
      if (typeof path === 'string') template = `${(req as { baseUrl?: string }).baseUrl ?? ''}${path}`.replace(/(.)\/$/, '$1') || '/';
    },
  });
  return () => template;
}

/**
 * Wraps the gateway's request handler with `http_server_request_duration_seconds{method,route,status,mode}`:
 * its `_count` is the request rate per route, errors are the 5xx (and 4xx) series. The route is the
 * template, never the raw path, so ids in URLs do not explode the series. `mode` is the mode the request
 * acted in, `live` or `test`, or `none` when it was not authenticated (checkout pages, callbacks, 401s), so test
 * traffic can be told from the live traffic that alerts are about.
 */
export function observeRequests(handler: RequestListener, registry: Registry): RequestListener {
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'HTTP requests served by the gateway, by method, route template, status code and mode (live, test, none)',
    labelNames: ['method', 'route', 'status', 'mode'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    const stop = duration.startTimer();
    const routeOf = captureRouteTemplate(req);
    // 'close' covers a client that went away before the response finished (recorded with the status set so far).
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      stop({ method: req.method ?? 'OTHER', route: routeOf(), status: String(res.statusCode), mode: modeLabelOf(res) });
    };
    res.once('finish', record);
    res.once('close', record);
    handler(req, res);
  };
}
