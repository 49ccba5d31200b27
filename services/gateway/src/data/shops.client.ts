import type { BusClient } from '@pl/bus';
import {
  subjects,
  type CreateShopCommand,
  type Identity,
  type ListShopsCommand,
  type MerchantIdentity,
  type MerchantShop,
  type MerchantShopPage,
  type RotatedSecret,
  type RotateSecretCommand,
  type SetPayoutScheduleCommand,
  type ShopView,
  type UpdateShopCommand,
} from '@pl/contracts';
import { isAppError } from '@pl/errors';

const GATEWAY_IDENTITY: Identity = { kind: 'service', service: 'gateway' };

/**
 * The shops service. Cashier-key lookups go with the gateway's own service identity; the merchant's own shop
 * routes go on behalf of the merchant, and the shops service checks ownership (403) and existence (404) from
 * that identity.
 */
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

  list(identity: MerchantIdentity, command: ListShopsCommand, requestId: string): Promise<MerchantShopPage> {
    return this.bus.request(subjects.shopsList, command, identity, { requestId });
  }

  read(identity: MerchantIdentity, shopId: number, requestId: string): Promise<MerchantShop> {
    return this.bus.request(subjects.shopsRead, { shop_id: shopId }, identity, { requestId });
  }

  create(identity: MerchantIdentity, command: CreateShopCommand, requestId: string): Promise<MerchantShop> {
    return this.bus.request(subjects.shopsCreate, command, identity, { requestId });
  }

  update(identity: MerchantIdentity, command: UpdateShopCommand, requestId: string): Promise<MerchantShop> {
    return this.bus.request(subjects.shopsUpdate, command, identity, { requestId });
  }

  /** The shop with its payout schedule of the identity's mode set (docs/payouts.md, "Automatic payouts"). */
  setPayoutSchedule(identity: MerchantIdentity, command: SetPayoutScheduleCommand, requestId: string): Promise<MerchantShop> {
    return this.bus.request(subjects.shopsSetPayoutSchedule, command, identity, { requestId });
  }

  /** The new webhook secret, shown to the merchant once. */
  rotateSecret(identity: MerchantIdentity, command: RotateSecretCommand, requestId: string): Promise<RotatedSecret> {
    return this.bus.request(subjects.shopsRotateSecret, command, identity, { requestId });
  }

  /**
   * A new cashier key of the command's mode, shown to the merchant once: that mode's old key stops at once, the
   * other mode's keeps working. The mode is the command's, not the caller's (a live session may renew the test key).
   */
  reissueCashierKey(
    identity: MerchantIdentity,
    command: { shop_id: number; mode: MerchantIdentity['mode'] },
    requestId: string,
  ): Promise<{ cashier_key: string; mode: MerchantIdentity['mode'] }> {
    return this.bus.request(subjects.shopsReissueCashierKey, command, identity, { requestId });
  }
}
