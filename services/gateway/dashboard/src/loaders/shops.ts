import { listAllShops } from '../api/shops';
import { useLoad, type Loaded } from '../kit/use-load';
import type { MerchantShop, MerchantShopPage } from '../types';

export interface Shops extends Loaded<MerchantShopPage> {
  /** The shops, empty until they are loaded. */
  list: readonly MerchantShop[];
  /** A shop's name, or `#id` while the names load (or for a shop not in the list). */
  nameOf: (id: number) => string;
  /** The shops as filter options, `[id, name]`. */
  options: readonly (readonly [string, string])[];
}

/** Every shop of the merchant, loaded once per page that shows names or a shop picker. */
export function useShops(): Shops {
  const loaded = useLoad(listAllShops, 'shops');
  const list = loaded.data?.shops ?? [];
  return {
    ...loaded,
    list,
    nameOf: (id) => list.find((s) => s.id === id)?.name ?? `#${id}`,
    options: list.map((s) => [String(s.id), s.name] as const),
  };
}
