import { Client } from 'pg';
import type { Logger } from 'pino';
import { OUTBOX_CHANNEL } from './outbox.repository';

/**
 * LISTENs for outbox inserts on a connection of its own (a pooled one would be held forever). When the
 * connection drops, notifications are missed until `ensureListening` reconnects; the relay's poll
 * covers that gap, so a lost notification only delays an event, never loses it.
 */
export class OutboxListener {
  private client: Client | null = null;

  constructor(
    private readonly url: string,
    private readonly onNotify: () => void,
    private readonly log: Logger,
  ) {}

  async ensureListening(): Promise<void> {
    if (this.client) return;
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 2000 });
    const drop = (): void => {
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
    };
    client.on('notification', () => this.onNotify());
    client.on('error', (err) => {
      this.log.debug({ err }, 'outbox listener connection failed; polling until it is back');
      drop();
    });
    client.on('end', drop);
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.client = client;
      // Rows committed while nobody listened are found by the pass that follows this call anyway.
    } catch (err) {
      this.log.debug({ err }, 'outbox listener cannot connect; polling meanwhile');
      drop();
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
