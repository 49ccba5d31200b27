import type { CryptoNetwork } from '@pl/contracts';

/** Heleket's coin and network codes for each of the platform's networks (docs/product-decisions.md, "Create"). */
export const HELEKET_NETWORKS: Readonly<Record<CryptoNetwork, { readonly currency: string; readonly network: string }>> = {
  'USDT-TRC20': { currency: 'USDT', network: 'tron' },
  'USDT-ERC20': { currency: 'USDT', network: 'eth' },
  'USDT-TON': { currency: 'USDT', network: 'ton' },
  'BTC-BTC': { currency: 'BTC', network: 'btc' },
  'ETH-ETH': { currency: 'ETH', network: 'eth' },
  'TON-TON': { currency: 'TON', network: 'ton' },
};

/** The platform's network for Heleket's (coin, network), or null for one the platform does not offer. */
export function platformNetworkOf(currency: string, network: string): CryptoNetwork | null {
  for (const [ours, theirs] of Object.entries(HELEKET_NETWORKS) as [CryptoNetwork, { currency: string; network: string }][]) {
    if (theirs.currency.toUpperCase() === currency.toUpperCase() && theirs.network.toLowerCase() === network.toLowerCase()) return ours;
  }
  return null;
}
