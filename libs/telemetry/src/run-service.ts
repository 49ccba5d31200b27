import { createLogger, type Logger } from './logger';
import { shutdownTracing } from './tracing-state';

interface Stoppable {
  stop(): Promise<void>;
}

export interface RunServiceOptions<C extends { LOG_LEVEL: string }> {
  name: string;
  loadConfig: () => C;
  start: (config: C, log: Logger) => Promise<Stoppable>;
  /** How long a graceful stop may take before the process gives up and exits 1. */
  stopTimeoutMs?: number;
}

/**
 * The whole of a service's main: config, logger, start, and a graceful stop on SIGTERM/SIGINT that exits 0,
 * or 1 when stopping fails or takes longer than the bound. A signal that arrives while the service is still
 * starting stops it as soon as it has started.
 */
export function runService<C extends { LOG_LEVEL: string }>(options: RunServiceOptions<C>): void {
  const bootLog = createLogger(options.name);
  let log = bootLog;
  let service: Stoppable | undefined;
  let stopping = false;

  const stopAndExit = (running: Stoppable): void => {
    const timer = setTimeout(() => {
      log.error({ timeout_ms: options.stopTimeoutMs ?? 25_000 }, 'graceful stop took too long');
      process.exit(1);
    }, options.stopTimeoutMs ?? 25_000);
    timer.unref();
    running.stop().then(
      // Buffered spans are flushed before the exit (a no-op when tracing is off).
      () => shutdownTracing().then(() => process.exit(0)),
      (err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    if (service) stopAndExit(service);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  (async () => {
    const config = options.loadConfig();
    log = createLogger(options.name, config.LOG_LEVEL);
    service = await options.start(config, log);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a signal may have come while the service was starting; narrowing cannot see it
    if (stopping) stopAndExit(service);
  })().catch((err: unknown) => {
    log.fatal({ err }, `${options.name} failed to start`);
    process.exit(1);
  });
}
