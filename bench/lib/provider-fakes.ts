import { randomBytes, randomUUID } from 'node:crypto';
import { HeleketFake, RaiffeisenSbpFake } from '@pl/provider-fakes';

/** The providers' local fakes in the bench's own process, and the environment that points the services' real adapters at them. */
export interface BenchProviderFakes {
  readonly raiffeisen: RaiffeisenSbpFake;
  readonly heleket: HeleketFake;
  readonly env: Record<string, string>;
  /** The secret Raiffeisen signs its notifications with (the bench sends them at a fixed rate itself). */
  readonly raiffeisenSecret: string;
  stop(): Promise<void>;
}

/** Both fakes on free ports with fresh keys; Raiffeisen's callback address is set once the gateway's is known. */
export async function startBenchProviderFakes(): Promise<BenchProviderFakes> {
  const secret = () => randomBytes(24).toString('hex');
  const raiffeisenKeys = { secretKey: secret(), sbpMerchantId: `MA${randomBytes(5).toString('hex').toUpperCase()}` };
  const heleketKeys = { merchantId: randomUUID(), paymentKey: secret(), payoutKey: secret() };
  const raiffeisen = new RaiffeisenSbpFake(raiffeisenKeys);
  await raiffeisen.start();
  const heleket = await HeleketFake.start(heleketKeys);
  return {
    raiffeisen,
    heleket,
    raiffeisenSecret: raiffeisenKeys.secretKey,
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
