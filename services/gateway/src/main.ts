import { createLogger } from '@pl/telemetry';
import { startGateway } from './app';
import { loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('gateway', config.LOG_LEVEL);
  const service = await startGateway(config, log);
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'stopping');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  createLogger('gateway').fatal({ err }, 'gateway failed to start');
  process.exit(1);
});
