import type { RunningService } from '@pl/config';
import { createLogger } from '@pl/telemetry';
import { startNotifier } from './app';
import { loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('notifier', config.LOG_LEVEL);
  let service: RunningService | undefined;
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    // A signal during start (the worker already sends while the consumer joins its group) stops once started.
    if (service) stopAndExit(service);
  };
  const stopAndExit = (running: RunningService): void => {
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  service = await startNotifier(config, log);
  if (stopping) stopAndExit(service);
}

main().catch((err: unknown) => {
  createLogger('notifier').fatal({ err }, 'notifier service failed to start');
  process.exit(1);
});
