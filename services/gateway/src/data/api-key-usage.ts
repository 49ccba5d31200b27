import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';

/**
 * Keeps `last_used_at` of API keys roughly current without a write per request: a key's use is written at
 * most once per `everyMs` per process, in the background; a failed write is logged and the next use retries.
 */
export class ApiKeyUsage {
  private readonly written: LRUCache<string, true>;

  constructor(
    private readonly touch: (publicKey: string) => Promise<void>,
    private readonly log: Logger,
    options: { everyMs: number; maxKeys: number },
  ) {
    this.written = new LRUCache({ max: options.maxKeys, ttl: options.everyMs, ttlAutopurge: false });
  }

  /** Notes a use; returns at once. */
  used(publicKey: string): void {
    if (this.written.has(publicKey)) return;
    this.written.set(publicKey, true);
    this.touch(publicKey).catch((err: unknown) => {
      this.written.delete(publicKey);
      this.log.warn({ err }, 'could not record an API key use');
    });
  }
}
