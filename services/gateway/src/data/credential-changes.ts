import type { BusClient } from '@pl/bus';
import { broadcasts } from '@pl/contracts';
import type { ApiKeyCache } from './api-key.cache';

/** A connection status as NATS reports it; only its type matters here. */
interface ConnectionStatus {
  type: unknown;
}

/**
 * Revocations and reissues of API keys, across every gateway replica: the replica that makes the change drops
 * its own cached copy at once and broadcasts `gateway.credentials.changed`; every replica drops that key when
 * the message comes. NATS delivers at most once, so while the connection is down a replica keeps no copies at
 * all, and starts from empty when it is back: a missed message never keeps a dead key alive.
 */
export class CredentialChanges {
  constructor(
    private readonly bus: Pick<BusClient, 'publish' | 'subscribe'>,
    private readonly cache: Pick<ApiKeyCache, 'evict' | 'clear' | 'setLive'>,
  ) {}

  /** Starts receiving other replicas' changes and following the connection; returns how to stop receiving. */
  listen(statuses: AsyncIterable<ConnectionStatus>): () => void {
    const sub = this.bus.subscribe(
      broadcasts.credentialsChanged,
      ({ public_key }) => (public_key === null ? this.cache.clear() : this.cache.evict(public_key)),
      () => this.cache.clear(),
    );
    // Ends with the connection's statuses, when the connection closes.
    void (async () => {
      for await (const status of statuses) {
        const type = String(status.type);
        if (type === 'disconnect') this.cache.setLive(false);
        else if (type === 'reconnect') this.cache.setLive(true);
      }
    })();
    return () => sub.unsubscribe();
  }

  /** A key was revoked, or reissued (it now stops at `expiresAt`): every replica forgets it. */
  changed(publicKey: string, expiresAt: Date | null): void {
    this.cache.evict(publicKey);
    this.bus.publish(broadcasts.credentialsChanged, { public_key: publicKey, expires_at: expiresAt?.toISOString() ?? null });
  }
}
