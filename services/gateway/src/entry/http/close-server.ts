import type { Server } from 'node:http';

/**
 * Stops `server` taking connections and resolves once every connection has ended. Idle kept-alive
 * connections are closed at once (a client writing to one at that very moment sees a reset: every
 * keep-alive server has that race, which is why the deployment takes a gateway out of its load balancer
 * before SIGTERM). A request that still arrives on a kept-alive connection (a client or
 * ingress that has not noticed the stop yet) is served with `Connection: close`, so its connection ends
 * cleanly after that answer: busy connections would otherwise never become idle, hold the stop for the
 * whole grace and then lose their requests in flight. After `graceMs` whatever is left is cut.
 */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    // Prepended: the application may answer synchronously, after which no header can be set.
    server.prependListener('request', (_req, res) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    });
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
