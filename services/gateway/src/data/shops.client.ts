import type { BusClient } from '@pl/bus';
import { subjects, type Identity, type ShopView } from '@pl/contracts';
import { isAppError } from '@pl/errors';

const GATEWAY_IDENTITY: Identity = { kind: 'service', service: 'gateway' };

/** The shops service, asked with the gateway's own service identity. */
export class ShopsClient {
  constructor(private readonly bus: BusClient) {}

  /** The shop a cashier key belongs to, or null when the key names no shop. */
  async findByCashierKey(cashierKey: string, requestId: string): Promise<ShopView | null> {
    try {
      return await this.bus.request(subjects.shopsByCashierKey, { cashier_key: cashierKey }, GATEWAY_IDENTITY, { requestId });
    } catch (e) {
      // An unknown or revoked key is the caller's problem (401); an outage stays an outage (503).
      if (isAppError(e) && (e.kind === 'not_found' || e.kind === 'unauthorized' || e.kind === 'validation')) return null;
      throw e;
    }
  }
}
