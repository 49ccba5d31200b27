// Tracing starts before anything it instruments (pg, http, express, redis, pino) is required, so this is
// the only static import (a module of @pl/telemetry that loads none of them) and the service is loaded after it.
import { startTracing } from '@pl/telemetry/tracing';

startTracing('notifier');

void (async () => {
  const [{ runService }, { startNotifier }, { loadConfig }] = await Promise.all([import('@pl/telemetry'), import('./app'), import('./config')]);
  runService({ name: 'notifier', loadConfig: () => loadConfig(), start: startNotifier });
})();
