import { randomBytes, randomUUID } from 'node:crypto';
import { HeleketFake } from './heleket';
import { RaiffeisenSbpFake } from './raiffeisen';

/**
 * Both providers' fakes in this process, on free ports with fresh keys, and the environment that points the services'
 * real adapters at them (tests and the bench; `npm start` runs them as a process instead).
 */
export interface LocalProviderFakes {
  readonly raiffeisen: RaiffeisenSbpFake;
  readonly heleket: HeleketFake;
  /** PAYMENT_PROVIDER_SBP=raiffeisen, PAYMENT_PROVIDER_CRYPTO=heleket, their URLs and credentials. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** `publicBaseUrl` is the gateway's, where Raiffeisen notifies; without it, set `raiffeisen.callbackUrl` once known. */
export async function startLocalProviderFakes(publicBaseUrl?: string): Promise<LocalProviderFakes> {
  const secret = () => randomBytes(24).toString('hex');
  const raiffeisenKeys = { secretKey: secret(), sbpMerchantId: `MA${randomBytes(5).toString('hex').toUpperCase()}` };
  const heleketKeys = { merchantId: randomUUID(), paymentKey: secret(), payoutKey: secret() };
  const callbackUrl = publicBaseUrl === undefined ? null : `${publicBaseUrl}/callbacks/v1/raiffeisen-sbp`;
  const raiffeisen = new RaiffeisenSbpFake({ ...raiffeisenKeys, callbackUrl });
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
