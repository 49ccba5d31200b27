import type { BusClient } from '@pl/bus';
import { subjects, type MerchantIdentity } from '@pl/contracts';
import type { ShopDirectory } from '../domain/delivery';

/**
 * Reads a shop from the shops service (a link from the links service) with the caller's own identity forwarded,
 * so that service applies its access rule (another merchant's is forbidden, an unknown one not_found). Nothing is
 * cached: these reads come from merchants' requests, not from the delivery path.
 */
export class ShopDirectoryClient implements ShopDirectory {
  constructor(private readonly bus: BusClient) {}

  async shopFor(identity: MerchantIdentity, shopId: number): Promise<{ merchantId: string; webhookUrl: string | null }> {
    const shop = await this.bus.request(subjects.shopsGet, { shop_id: shopId }, identity);
    return { merchantId: shop.merchant_id, webhookUrl: shop.webhook_url };
  }

  async linkFor(identity: MerchantIdentity, linkId: string): Promise<void> {
    await this.bus.request(subjects.linksGet, { id: linkId }, identity);
  }
}
