// Tracing starts before anything it instruments (pg, http, express, redis, pino) is required, so this is
// the only static import (a module of @pl/telemetry that loads none of them) and the service is loaded after it.
import { startTracing } from '@pl/telemetry/tracing';

startTracing('links');

void (async () => {
  const [{ runService }, { startLinks }, { loadConfig }, { crashPointsFromEnv }] = await Promise.all([
    import('@pl/telemetry'),
    import('./app'),
    import('./config'),
    import('@pl/config'),
  ]);
  // The crash tests' fault injection, armed only by their environment (tests/faults); a no-op otherwise.
  const crashPoints = crashPointsFromEnv(process.env);
  runService({
    name: 'links',
    loadConfig: () => loadConfig(),
    start: (config, log) => startLinks(config, log, undefined, crashPoints),
  });
})();
