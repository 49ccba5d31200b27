import { RaiffeisenSbpFake } from './raiffeisen';

/**
 * Runs the provider fakes as a process, for `npm start` against them: configuration from the environment only
 * (a secret is never a program argument).
 *
 * - `RAIFFEISEN_FAKE_PORT` (default 8091): the Raiffeisen SBP fake; the services' `RAIFFEISEN_SBP_API_URL` is
 *   `http://127.0.0.1:<port>/api`.
 * - `RAIFFEISEN_SECRET_KEY`, `RAIFFEISEN_SBP_MERCHANT_ID`: the same values the services are given.
 * - `RAIFFEISEN_FAKE_CALLBACK_URL` (default `http://127.0.0.1:8080/callbacks/v1/raiffeisen-sbp`): where it notifies.
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

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const raiffeisen = new RaiffeisenSbpFake({
    secretKey: required(env, 'RAIFFEISEN_SECRET_KEY'),
    sbpMerchantId: required(env, 'RAIFFEISEN_SBP_MERCHANT_ID'),
    callbackUrl: env.RAIFFEISEN_FAKE_CALLBACK_URL?.trim() || 'http://127.0.0.1:8080/callbacks/v1/raiffeisen-sbp',
  });
  await raiffeisen.start(port(env, 'RAIFFEISEN_FAKE_PORT', 8091));
  process.stdout.write(`raiffeisen sbp fake: RAIFFEISEN_SBP_API_URL=${raiffeisen.apiUrl} (control: ${raiffeisen.url}/_fake/qrs)\n`);

  const stop = () => {
    raiffeisen.stop().then(
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
