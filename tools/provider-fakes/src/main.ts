import { HeleketFake } from './heleket';
import { RaiffeisenSbpFake } from './raiffeisen';

/**
 * Runs both provider fakes in one process, for `npm start` against them (`PAYMENT_PROVIDERS=fakes npm start`,
 * docs/providers.md "Local run"): configuration from the environment only (a secret is never a program argument),
 * under the same names the services read, so one environment serves both.
 *
 * - `RAIFFEISEN_FAKE_PORT` (default 8091): the Raiffeisen SBP fake; the services' `RAIFFEISEN_SBP_API_URL` is
 *   `http://127.0.0.1:<port>/api`. `RAIFFEISEN_SECRET_KEY`, `RAIFFEISEN_SBP_MERCHANT_ID`: the services' values.
 *   `RAIFFEISEN_FAKE_CALLBACK_URL` (default `http://127.0.0.1:8080/callbacks/v1/raiffeisen-sbp`): where it notifies.
 * - `HELEKET_FAKE_PORT` (default 8092): the Heleket fake, the services' `HELEKET_API_URL`. `HELEKET_MERCHANT_ID`,
 *   `HELEKET_PAYMENT_KEY`, `HELEKET_PAYOUT_KEY`: the services' values. It calls back the `url_callback` of each
 *   invoice (the gateway's `PUBLIC_BASE_URL` + `/callbacks/v1/heleket`).
 * - `PROVIDER_FAKES_DELAY_MS` (default 0): every API answer of both waits this long (the benchmarks' provider latency).
 */

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`${name} is required`);
  return value;
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name} must be a port number`);
  return value;
}

function delayMs(env: NodeJS.ProcessEnv): number {
  const text = env.PROVIDER_FAKES_DELAY_MS?.trim();
  const value = text ? Number(text) : 0;
  if (!Number.isInteger(value) || value < 0) throw new Error('PROVIDER_FAKES_DELAY_MS must be a whole number of milliseconds');
  return value;
}

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const raiffeisen = new RaiffeisenSbpFake({
    secretKey: required(env, 'RAIFFEISEN_SECRET_KEY'),
    sbpMerchantId: required(env, 'RAIFFEISEN_SBP_MERCHANT_ID'),
    callbackUrl: env.RAIFFEISEN_FAKE_CALLBACK_URL?.trim() || 'http://127.0.0.1:8080/callbacks/v1/raiffeisen-sbp',
  });
  const heleketKeys = {
    merchantId: required(env, 'HELEKET_MERCHANT_ID'),
    paymentKey: required(env, 'HELEKET_PAYMENT_KEY'),
    payoutKey: required(env, 'HELEKET_PAYOUT_KEY'),
  };
  const delay = delayMs(env);
  await raiffeisen.start(port(env, 'RAIFFEISEN_FAKE_PORT', 8091));
  const heleket = await HeleketFake.start({ ...heleketKeys, port: port(env, 'HELEKET_FAKE_PORT', 8092) });
  if (delay > 0) {
    // A fault queue long enough for any local run: every request of any kind waits `delay` before its answer.
    raiffeisen.fail('*', { type: 'delay', ms: delay }, 10_000_000);
    heleket.latencyMs = delay;
  }
  process.stdout.write(
    `raiffeisen sbp fake: RAIFFEISEN_SBP_API_URL=${raiffeisen.apiUrl} (control: ${raiffeisen.url}/_fake/qrs)\n` +
      `heleket fake: HELEKET_API_URL=${heleket.url} (control: ${heleket.url}/_fake/state)\n`,
  );

  const stop = () => {
    Promise.all([raiffeisen.stop(), heleket.stop()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.env).catch((e: unknown) => {
  process.stderr.write(`provider fakes: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
