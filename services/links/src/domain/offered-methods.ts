import { modeOfLivemode, shopTakes, type CryptoNetwork, type PaymentMethods } from '@pl/contracts';
import { methodUnavailable } from '@pl/errors';
import { ProviderUnavailableError, type AvailableMethods, type PaymentMethod } from '@pl/providers';
import type { LinkRecord } from './link';
import type { LinkDeps } from './ports';

/**
 * How long the checkout waits to learn what a provider takes now. Heleket's list is cached (10 minutes, and its last
 * known list answers while Heleket is down), so only a first read waits, and not for a whole provider call.
 */
const AVAILABILITY_TIMEOUT_MS = 3000;

/**
 * What the provider of `method` for the link's mode can take now, or null when it cannot tell (no list read yet and
 * the provider down): then the shop's methods are offered and the provider's refusal of a create answers a select
 * (docs/providers.md, "A shop's methods").
 */
async function providerTakes(deps: LinkDeps, link: LinkRecord, method: PaymentMethod): Promise<AvailableMethods | null> {
  const provider = deps.providers.forPayment(modeOfLivemode(link.livemode), method);
  try {
    return await provider.availableMethods({ timeoutMs: Math.min(deps.providerTimeoutMs, AVAILABILITY_TIMEOUT_MS) });
  } catch (e) {
    if (e instanceof ProviderUnavailableError) return null;
    throw e;
  }
}

const takesNetwork = (available: AvailableMethods | null, network: CryptoNetwork): boolean =>
  available === null || available.networks.some((offer) => offer.network === network);

/** The methods the checkout offers for a link now: the shop's, less those its live provider cannot take now. */
export async function offeredMethods(deps: LinkDeps, link: LinkRecord, shop: PaymentMethods): Promise<PaymentMethods> {
  const [sbp, crypto] = await Promise.all([
    shop.sbp ? providerTakes(deps, link, 'sbp') : null,
    shop.crypto_networks.length > 0 ? providerTakes(deps, link, 'crypto') : null,
  ]);
  return {
    sbp: shop.sbp && (sbp === null || sbp.sbp),
    crypto_networks: shop.crypto_networks.filter((network) => takesNetwork(crypto, network)),
  };
}

/**
 * A select of a method the shop switched off, or that the provider does not take now, is refused before anything is
 * stored (422 `payment_link.err.method_unavailable`).
 */
export async function requireOffered(deps: LinkDeps, link: LinkRecord, shop: PaymentMethods, method: PaymentMethod, network: CryptoNetwork | null) {
  if (!shopTakes(shop, method, network)) throw methodUnavailable('The shop does not take this payment method');
  const available = await providerTakes(deps, link, method);
  if (available === null) return;
  const taken = method === 'sbp' ? available.sbp : network !== null && takesNetwork(available, network);
  if (!taken) throw methodUnavailable('The payment provider does not take this payment method now');
}
