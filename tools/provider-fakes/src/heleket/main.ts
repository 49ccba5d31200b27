import { HeleketFake } from './heleket-fake';

/**
 * The Heleket fake as a process: `HELEKET_FAKE_PORT` (default 4610), and the same `HELEKET_MERCHANT_ID`,
 * `HELEKET_PAYMENT_KEY`, `HELEKET_PAYOUT_KEY` the services read, from the environment only (never argv).
 */
function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const fake = await HeleketFake.start({
    port: Number(process.env.HELEKET_FAKE_PORT ?? '4610'),
    host: process.env.HELEKET_FAKE_HOST ?? '127.0.0.1',
    merchantId: required('HELEKET_MERCHANT_ID'),
    paymentKey: required('HELEKET_PAYMENT_KEY'),
    payoutKey: required('HELEKET_PAYOUT_KEY'),
  });
  process.stdout.write(`heleket fake listening on ${fake.url}\n`);
  const stop = (): void => void fake.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
