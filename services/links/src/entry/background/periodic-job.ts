import type { Logger } from 'pino';
import { Wakeable } from './wakeable';

export interface PeriodicJobOptions {
  intervalMs: number;
  log: Logger;
  /** What one run did, for the log line (or null to log nothing); a throw is logged and retried next interval. */
  run: () => Promise<Record<string, number> | null>;
  /** Log messages: after a run that did work, on the first failure of a series, and when it works again. */
  messages: { done: string; failing: string; recovered: string };
}

/**
 * A background job every replica runs each interval until stopped. A failure is logged once per series, not
 * every interval, so an outage of its database does not flood the log; `wakeable` lets the job's own work
 * pause in a way `stop()` cuts short.
 */
export class PeriodicJob {
  readonly wakeable = new Wakeable();
  private loop: Promise<void> | null = null;

  constructor(private readonly options: PeriodicJobOptions) {}

  get isStopped(): boolean {
    return this.wakeable.isStopped;
  }

  start(): void {
    this.loop ??= this.runEveryInterval();
  }

  /** Finishes the run in flight, then stops. */
  async stop(): Promise<void> {
    this.wakeable.stop();
    await this.loop;
  }

  private async runEveryInterval(): Promise<void> {
    const { intervalMs, log, run, messages } = this.options;
    let failing = false;
    while (!this.wakeable.isStopped) {
      try {
        const done = await run();
        if (done) log.info(done, messages.done);
        if (failing) log.info(messages.recovered);
        failing = false;
      } catch (err) {
        if (!failing) log.warn({ err }, messages.failing);
        failing = true;
      }
      await this.wakeable.sleep(intervalMs);
    }
  }
}
