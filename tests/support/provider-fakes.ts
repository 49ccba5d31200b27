import { randomBytes, randomUUID } from 'node:crypto';
import { HeleketFake, RaiffeisenSbpFake } from '@pl/provider-fakes';

/**
 * The local fakes of Raiffeisen SBP and Heleket (tools/provider-fakes), started for one test system with keys of its
 * own, and the environment that points the services' real adapters at them (docs/providers.md, "Local run").
 */
export interface ProviderFakes {
  readonly raiffeisen: RaiffeisenSbpFake;
  readonly heleket: HeleketFake;
  /** PAYMENT_PROVIDER_SBP=raiffeisen, PAYMENT_PROVIDER_CRYPTO=heleket, their URLs and credentials. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts both fakes on free ports; `publicBaseUrl` is the gateway's, where each fake sends its callbacks. */
export async function startProviderFakes(publicBaseUrl: string): Promise<ProviderFakes> {
  const secret = () => randomBytes(24).toString('hex');
  const raiffeisenKeys = { secretKey: secret(), sbpMerchantId: `MA${randomBytes(5).toString('hex').toUpperCase()}` };
  const heleketKeys = { merchantId: randomUUID(), paymentKey: secret(), payoutKey: secret() };
  const raiffeisen = new RaiffeisenSbpFake({ ...raiffeisenKeys, callbackUrl: `${publicBaseUrl}/callbacks/v1/raiffeisen-sbp` });
  await raiffeisen.start();
  const heleket = await HeleketFake.start(heleketKeys);
  return {
    raiffeisen,
    heleket,
    env: {
      PAYMENT_PROVIDER_SBP: 'raiffeisen',
      PAYMENT_PROVIDER_CRYPTO: 'heleket',
      RAIFFEISEN_SBP_API_URL: raiffeisen.apiUrl,
      RAIFFEISEN_SBP_MERCHANT_ID: raiffeisenKeys.sbpMerchantId,
      RAIFFEISEN_SECRET_KEY: raiffeisenKeys.secretKey,
      HELEKET_API_URL: heleket.url,
      HELEKET_MERCHANT_ID: heleketKeys.merchantId,
      HELEKET_PAYMENT_KEY: heleketKeys.paymentKey,
      HELEKET_PAYOUT_KEY: heleketKeys.payoutKey,
    },
    async stop() {
      await Promise.all([raiffeisen.stop(), heleket.stop()]);
    },
  };
}
