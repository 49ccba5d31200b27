import { Client } from 'pg';
import type { Logger } from 'pino';

/** The channel the `shops_changed` trigger notifies with the id of each changed shop. */
const SHOPS_CHANGED_CHANNEL = 'shops_changed';

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;

/**
 * LISTENs for committed shop changes on a connection of its own and reports each changed shop id. Changes
 * made while the connection is down go unseen, so every (re)connection first reports null: any shop may
 * have changed. The connection is retried with a capped backoff until {@link stop}.
 */
export class ShopChangesListener {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly onChange: (shopId: number | null) => void,
    private readonly log: Logger,
  ) {}

  /** Resolves after the first attempt to listen, whether or not it succeeded (a failure is retried). */
  start(): Promise<void> {
    return this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 2000 });
    let lost = false;
    const drop = (err?: unknown): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.failures += 1;
      this.log.warn({ err }, 'shop change listener lost its connection; shop copies elsewhere live out their TTL meanwhile');
      this.retry = setTimeout(() => void this.connect(), Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.failures - 1, 10)));
    };
    client.on('notification', (n) => {
      const shopId = Number(n.payload);
      this.onChange(Number.isSafeInteger(shopId) && shopId > 0 ? shopId : null);
    });
    client.on('error', drop);
    client.on('end', () => drop());
    try {
      await client.connect();
      await client.query(`LISTEN ${SHOPS_CHANGED_CHANNEL}`);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() or a lost connection may have come while connecting; narrowing cannot see it
      if (this.stopped || lost) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.failures = 0;
      this.onChange(null);
    } catch (err) {
      drop(err);
    }
  }
}
