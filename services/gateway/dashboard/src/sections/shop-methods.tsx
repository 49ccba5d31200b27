import { useState } from 'preact/hooks';
import { savePaymentMethods } from '../api/shops';
import { useI18n } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { useAction } from '../kit/use-load';
import type { CryptoNetwork, MerchantShop } from '../types';

/**
 * @pl/contracts' CRYPTO_NETWORKS with their coin and chain, written out (importing a value from the contracts would
 * bundle zod into the app). Keyed by the network, so the build fails when the contracts gain one this lacks.
 */
export const NETWORK_NAMES: Record<CryptoNetwork, string> = {
  'USDT-TRC20': 'USDT · TRC-20 (Tron)',
  'USDT-ERC20': 'USDT · ERC-20 (Ethereum)',
  'USDT-TON': 'USDT · TON',
  'BTC-BTC': 'Bitcoin',
  'ETH-ETH': 'Ether · Ethereum',
  'TON-TON': 'Toncoin · TON',
};
export const NETWORKS = Object.keys(NETWORK_NAMES) as CryptoNetwork[];

/** The methods the shop takes (shared by both modes); at least one stays on, which the server judges too. */
export function PaymentMethods({ shop, onSaved }: { shop: MerchantShop; onSaved: (s: MerchantShop) => void }) {
  const { t } = useI18n();
  const [sbp, setSbp] = useState(shop.payment_methods.sbp);
  const [networks, setNetworks] = useState<ReadonlySet<CryptoNetwork>>(() => new Set(shop.payment_methods.crypto_networks));
  const [changed, setChanged] = useState(false);
  const none = !sbp && networks.size === 0;
  const toggle = (network: CryptoNetwork, on: boolean) => {
    const next = new Set(networks);
    if (on) next.add(network);
    else next.delete(network);
    setNetworks(next);
    setChanged(true);
  };
  const save = useAction(async () => {
    setChanged(false);
    // In the platform's order, so the stored list reads the same whatever order the boxes were ticked in.
    onSaved(await savePaymentMethods(shop.id, { sbp, crypto_networks: NETWORKS.filter((n) => networks.has(n)) }));
  });
  return (
    <form
      class="card"
      aria-labelledby="payment-methods-title"
      data-testid="payment-methods"
      onSubmit={(e) => {
        e.preventDefault();
        if (!none) save.run();
      }}
      noValidate
    >
      <h2 id="payment-methods-title">{t.paymentMethodsTitle}</h2>
      <p class="hint" id="payment-methods-hint">
        {t.paymentMethodsHint}
      </p>
      <fieldset class="field checks" aria-describedby="payment-methods-hint">
        <legend class="visually-hidden">{t.paymentMethodsTitle}</legend>
        <label>
          <input
            type="checkbox"
            value="sbp"
            checked={sbp}
            onChange={(e) => {
              setSbp(e.currentTarget.checked);
              setChanged(true);
            }}
          />
          {t.sbpMethod}
        </label>
      </fieldset>
      <fieldset class="field checks">
        <legend>{t.cryptoNetworksLegend}</legend>
        {NETWORKS.map((network) => (
          <label key={network}>
            <input type="checkbox" value={network} checked={networks.has(network)} onChange={(e) => toggle(network, e.currentTarget.checked)} />
            {NETWORK_NAMES[network]} <span class="mono small">{network}</span>
          </label>
        ))}
      </fieldset>
      {none && (
        <p class="error" role="alert">
          {t.oneMethodNeeded}
        </p>
      )}
      <ErrorMessage error={save.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy || none} aria-busy={save.busy}>
          {t.savePaymentMethods}
        </button>
        {save.done && !changed && <span role="status">{t.paymentMethodsSaved}</span>}
      </div>
    </form>
  );
}
