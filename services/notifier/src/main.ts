// Tracing starts before anything it instruments (pg, http, express, redis, pino) is required, so this is
// the only static import (a module of @pl/telemetry that loads none of them) and the service is loaded after it.
import { startTracing } from '@pl/telemetry/tracing';

startTracing('notifier');

void (async () => {
  const [{ runService }, { startNotifier }, { loadConfig }, { crashPointsFromEnv }] = await Promise.all([
    import('@pl/telemetry'),
    import('./app'),
    import('./config'),
    import('@pl/config'),
  ]);
  // The crash tests' fault injection, armed only by their environment (tests/faults); a no-op otherwise.
  const crashPoints = crashPointsFromEnv(process.env);
  runService({ name: 'notifier', loadConfig: () => loadConfig(), start: (config, log) => startNotifier(config, log, crashPoints) });
})();
